// Stub (ours) of a mesh-internal module.
import { Component, type ReactNode } from "react";

interface Props {
  fallback: (props: { error: unknown; resetError: () => void }) => ReactNode;
  children?: ReactNode;
}

export class ErrorBoundary extends Component<Props, { error: unknown }> {
  override state = { error: null as unknown };
  static getDerivedStateFromError(error: unknown) {
    (
      window as unknown as { __harness: { crash(e: unknown): void } }
    ).__harness.crash(error);
    return { error };
  }
  override render() {
    if (this.state.error) {
      return this.props.fallback({
        error: this.state.error,
        resetError: () => this.setState({ error: null }),
      });
    }
    return this.props.children;
  }
}
