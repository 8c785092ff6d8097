it("{{sender}} reaches {{bridge}}.{{accessor}}", async () => {
  const receivedStates: unknown[] = [];
  {{bridge}}.{{accessor}} = ({ state }) => {
    receivedStates.push(state);
  };

  {{connect}}
  await {{app}}.{{sender}}({ state: { tab: "details" } });

  expect(receivedStates).toEqual([{ tab: "details" }]);
});
