
/**
 * `{{method}}`, sent by the app whenever its state
 * changes. The SDK's AppBridge has no handler for it, so we register our own.
 * `state: null` is no state, and so is a report without a state
 * (`params: {}`).
 */
export const StateChangedNotificationSchema = z.object({
  method: z.literal("{{method}}"),
  params: z.object({ state: z.unknown().optional() }),
});
