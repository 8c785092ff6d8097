it("setHostContext({ {{context_field}} }) after the app initialized reaches it, null included", async () => {
  {{connect}}

  let changed = {{changed}};
  {{bridge}}.setHostContext({ {{context_field}}: { tab: "details" } });
  await changed;
  expect({{app}}.getHostContext()?.{{context_field}}).toEqual({ tab: "details" });

  changed = {{changed}};
  {{bridge}}.setHostContext({ {{context_field}}: null });
  await changed;
  expect({{app}}.getHostContext()?.{{context_field}}).toBeNull();
});
