it("{{schema}} rejects a notification without state", () => {
  const method = "{{method}}";
  const parse = (params: unknown) => {{schema}}.safeParse({ method, params });

  expect(parse({}).success).toBe(false);
  expect(parse({ state: null }).success).toBe(true);
});
