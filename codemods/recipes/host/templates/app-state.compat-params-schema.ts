
/**
 * The params of `ui/notifications/state-changed`, sent by the app whenever
 * its state changes. The SDK's AppBridge has no handler for it, so we
 * register our own (2.x: by method name, with this params schema).
 */
export const StateChangedParamsSchema = z.object({ state: z.unknown() });
