
/**
 * `{{method}}`, sent by the app whenever its state
 * changes. The SDK's AppBridge has no handler for it, so we register our own.
 * `state: null` is no state; an older app's `{ state: undefined }` arrives as
 * `params: {}`, so a missing state is accepted too.
 */
export const StateChangedNotificationSchema = z.object({
  method: z.literal("{{method}}"),
  params: z.object({ state: z.unknown().optional() }),
});
