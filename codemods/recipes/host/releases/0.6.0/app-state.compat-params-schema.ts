
/**
 * The params of `{{method}}`, sent by the app whenever
 * its state changes. The SDK's AppBridge has no handler for it, so we
 * register our own (2.x: by method name, with this params schema). `state:
 * null` is no state, and so is a report without a state (`params: {}`).
 */
export const StateChangedParamsSchema = z.object({
  state: z.unknown().optional(),
});
