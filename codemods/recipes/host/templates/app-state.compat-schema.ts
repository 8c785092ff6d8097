
/**
 * `ui/notifications/state-changed`, sent by the app whenever its state
 * changes. The SDK's AppBridge has no handler for it, so we register our own.
 */
export const StateChangedNotificationSchema = z.object({
  method: z.literal("ui/notifications/state-changed"),
  params: z.object({ state: z.unknown() }),
});
