/**
 * Types the in-page runtime's modules share (the page state, targets, resolve results). Types only:
 * nothing here exists at run time, so the modules may import it without breaking their serialisation.
 */
import type { Rect, RuntimeResolve, RuntimeSettle } from './api.js';

export interface RefEntry {
  weak: WeakRef<Element>;
  role: string;
  name: string;
  route: string;
  box?: string;
}
export interface QueryEntry {
  /** A find/observe locator: the target the handle re-resolves on every use. */
  locator: Target;
}
export interface ActionRecord {
  ref: string;
  el: Element;
  observers: MutationObserver[];
  count: number;
  /** performance.now() of the last DOM mutation seen. */
  lastMutationAt: number;
  /** The frame after the action's last input event: when it ran and the mutation count then. */
  frame: Promise<{ at: number; count: number }> | null;
  unlisten: (() => void)[];
  /** Resolves when the action's input reached the page (its first terminal event). */
  inputSeen: Promise<void>;
  markInput: () => void;
  read: string;
  textBefore?: string;
  checkedBefore?: boolean | 'mixed' | null;
  /** The settle, once started (by the settle call or by the input when a report URL was given). */
  settling?: Promise<RuntimeSettle>;
  /** Where the page reports this action's settle (the driver's URL for it), when it does. */
  report?: string;
  /** A navigation began during the action (beforeunload): a report would describe the old document. */
  leaving?: boolean;
}
/** Per document, kept across a runtime upgrade (stateVersion 1): refs minted earlier stay valid. */
export interface State {
  docId: string;
  nextRef: number;
  refs: Map<string, RefEntry>;
  byEl: WeakMap<Element, string>;
  nextQ: number;
  queries: Map<string, QueryEntry>;
  queryKeys: Map<string, string>;
  lastLines: string[] | null;
  action: ActionRecord | null;
  lastResolved: Element | null;
  /** The last action's settle, for the one settle call that comes after its report already went. */
  settled?: Promise<RuntimeSettle> | null;
  /** The document's CSP refused a settle report: no more reports from this document. */
  reportsRefused?: boolean;
  /** The listener that hides a refused report's violation event from the page is installed. */
  reportGuard?: boolean;
}

export interface Target {
  text?: string;
  contains?: string;
  label?: string;
  role?: string;
  name?: string;
  testId?: string;
  css?: string;
  within?: string | Target;
  nth?: number;
}
export type Locator = { ref?: string; target?: Target };
/** What the Node side remembers of a ref, to re-find its element after a reload. */
export interface Expect {
  role: string;
  name: string;
  route: string;
  docId: string;
}
export type Resolve = RuntimeResolve;

/** A node of the snapshot tree, before it is printed. */
export interface SNode {
  role: string;
  name: string;
  el: Element | null;
  ref?: string;
  states: string;
  value?: string;
  typeable?: boolean;
  text?: string;
  inline?: string;
  children: SNode[];
  interactive: boolean;
  context: boolean;
  offscreen: boolean;
  summary?: number;
  count: number;
}
/** The walk's running context: what is on screen, what is focused, the budgets. */
export interface WalkCtx {
  clip: Rect;
  offset: { x: number; y: number };
  summarize: boolean;
  active: Element | null;
  labelTexts: Set<Element>;
  occlusionBudget: number;
  nodes: number;
  /** Text here inherits visibility:hidden from the element being walked. */
  textHidden: boolean;
  /** An ancestor was already marked [offscreen]; its content is not marked again. */
  inOffscreen: boolean;
  markEveryOffscreen: boolean;
}
/** A printed snapshot line, with the number of nodes it stands for. */
export interface Line {
  depth: number;
  text: string;
  weight: number;
}
