it("{{sender}} reaches {{event}} listeners, null included", async () => {
  const receivedStates: unknown[] = [];
  {{bridge}}.addEventListener("{{event}}", ({ state }) => {
    receivedStates.push(state);
  });

  {{connect}}
  await {{app}}.{{sender}}({ state: { tab: "invoices" } });
  await {{app}}.{{sender}}({ state: null });

  expect(receivedStates).toEqual([{ tab: "invoices" }, null]);
});
