
/**
 * The params of `{{method}}`, sent by the app whenever
 * its state changes. The SDK's AppBridge has no handler for it, so we
 * register our own (2.x: by method name, with this params schema). `state:
 * null` is no state; an older app's `{ state: undefined }` arrives as
 * `params: {}`, so a missing state is accepted too.
 */
export const StateChangedParamsSchema = z.object({
  state: z.unknown().optional(),
});
