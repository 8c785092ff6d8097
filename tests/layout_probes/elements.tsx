// JSX where text, a comment, a string and a regex sit side by side: the
// layout relation's cross-check against @babel/parser edits them at random.
import { useMemo, type ReactNode } from "react";

const SLASHES = /\/+/g;

export function Panel({ title, children }: { title: string; children?: ReactNode }) {
  const cleaned = useMemo(() => title.replace(SLASHES, "/"), [title]);
  const empty = cleaned.length === 0;
  return (
    <section className="panel" data-title={cleaned} aria-hidden={empty ? "true" : undefined}>
      {/* the heading */}
      <h2>
        {cleaned} and <b>more</b> text,{" "}
        <i>wrapped</i>
      </h2>
      {"/* not a comment */"}
      {empty && <p className='empty'>Nothing here &amp; nothing there.</p>}
      {children ?? <>no children</>}
      <input value={String(/a+/)} onChange={(event) => void event.target.value} disabled />
    </section>
  );
}

export const generic = <T,>(value: T): T => value;
