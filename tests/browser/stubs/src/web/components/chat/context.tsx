// Stub (ours) of a mesh-internal module: no chat around the apps.
const PREFS = {
  selectedVirtualMcp: null,
  setAppContext: () => {},
  clearAppContext: () => {},
};

export function useOptionalChatPrefs() {
  return null;
}
export function useChatPrefs() {
  return PREFS;
}
export function useOptionalChatStream() {
  return null;
}
export function useChatBridge() {
  return { sendMessage: () => {} };
}
