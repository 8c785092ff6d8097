it("an {{context_field}} given to the AppBridge constructor shows in getHostContext()", async () => {
  {{made}}
  const options = { hostContext: { {{context_field}}: { tab: "invoices" } } };
  const restoring = new AppBridge({{arguments}}, options);
  await restoring.connect({{transport}});
  {{connect_app}}

  expect({{app}}.getHostContext()?.{{context_field}}).toEqual({ tab: "invoices" });
});
