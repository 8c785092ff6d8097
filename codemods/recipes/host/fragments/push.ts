// The app's slot changed: the change the page's last link or back/forward
// made to it (not a write of the apps' states, which replaces the history
// entry, nor an eviction after it) tells the app, unless it shows that
// state already. A loading app starts from it.
const appState = JSON.stringify(config.appState ?? null);
if (!config.onAppStateChange || appState === this.lastAppState) return;
this.lastAppState = appState;
const navigation = lastNavigation;
if (!navigation || navigation === this.heardNavigation) return;
this.heardNavigation = navigation;
const navigated = readAppState(navigation.param, config.appKey ?? "");
if (appState !== JSON.stringify(navigated ?? null)) return;
if (appState === JSON.stringify(this.shownAppState ?? null)) return;
this.shownAppState = config.appState ?? null;
if (
  this.snapshot.isLoading ||
  appState !== JSON.stringify(this.contextAppState ?? null)
) {
  this.contextAppState = this.shownAppState;
  this.pushHostContext();
} else {
  this.bridge.sendHostContextChange({ {{context_field}}: this.shownAppState });
}
