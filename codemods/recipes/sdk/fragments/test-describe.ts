describe("view navigation state ({{method}}, hostContext.{{context_field}})", () => {
  {{cases}}
});
