it("{{sender}} before connect() throws{{under}}, naming the method", async () => {
  {{made}}
  const early = async () => {{receiver}}.{{sender}}({ state: null });
  await expect(early()).rejects.toThrow("{{sender}}");
});
