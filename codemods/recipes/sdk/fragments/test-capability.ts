it("the {{capability}} capability given to the AppBridge reaches the app, with maxLength", async () => {
  {{made}}
  const keeping = new AppBridge({{arguments}});
  await keeping.connect({{transport}});
  {{connect_app}}

  expect({{app}}.getHostCapabilities()?.{{capability}}).toEqual({ maxLength: 1024 });
});
