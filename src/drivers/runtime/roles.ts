/**
 * Roles and accessible names (a pragmatic subset of ARIA in HTML and accname 1.2), read from the DOM
 * the way the snapshot, target matching and the steps name elements.
 */
import type { helpersModule } from './helpers.js';

type Deps = ReturnType<typeof helpersModule>;

export function rolesModule(dep: Deps) {
  const { TEXT, isEl, norm } = dep;

  const KNOWN_ROLES = new Set(
    'alert alertdialog application article banner blockquote button caption cell checkbox code columnheader combobox complementary contentinfo definition deletion dialog directory document emphasis feed figure form generic grid gridcell group heading img insertion link list listbox listitem log main mark marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter navigation none note option paragraph presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider spinbutton status strong subscript superscript switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem iframe'.split(
      ' ',
    ),
  );
  const INTERACTIVE = new Set(
    'button link textbox searchbox spinbutton combobox listbox option checkbox radio switch slider tab menuitem menuitemcheckbox menuitemradio treeitem'.split(
      ' ',
    ),
  );
  const CONTEXT = new Set(
    'dialog alertdialog form navigation search region main list listbox menu menubar tablist radiogroup grid table tree treegrid group toolbar'.split(
      ' ',
    ),
  );
  const NAME_FROM_CONTENT = new Set(
    'button link checkbox radio switch option heading tab menuitem menuitemcheckbox menuitemradio treeitem cell gridcell columnheader rowheader tooltip'.split(
      ' ',
    ),
  );
  const TYPEABLE = new Set(['textbox', 'searchbox', 'spinbutton']);
  const SKIP_TAGS = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'slot-fallback']);
  const TEXT_INPUT_TYPES = new Set([
    '',
    'text',
    'email',
    'tel',
    'url',
    'password',
    'search',
    'number',
    'date',
    'datetime-local',
    'month',
    'time',
    'week',
  ]);
  const ROLE_TAGS: Record<string, string> = {
    button: 'button,input,summary',
    link: 'a[href],area[href]',
    textbox: 'input,textarea,[contenteditable]',
    searchbox: 'input',
    spinbutton: 'input',
    combobox: 'select,input',
    listbox: 'select',
    option: 'option',
    checkbox: 'input',
    radio: 'input',
    slider: 'input',
    heading: 'h1,h2,h3,h4,h5,h6',
    list: 'ul,ol,menu',
    listitem: 'li',
    navigation: 'nav',
    main: 'main',
    banner: 'header',
    contentinfo: 'footer',
    complementary: 'aside',
    form: 'form',
    region: 'section',
    search: 'search',
    dialog: 'dialog',
    table: 'table',
    row: 'tr',
    cell: 'td',
    columnheader: 'th',
    rowheader: 'th',
    rowgroup: 'thead,tbody,tfoot',
    img: 'img,svg',
    group: 'fieldset,details,optgroup',
    progressbar: 'progress',
    meter: 'meter',
    status: 'output',
    separator: 'hr',
    paragraph: 'p',
    article: 'article',
    figure: 'figure',
    iframe: 'iframe',
  };

  function inputType(el: Element): string {
    return (el.getAttribute('type') ?? '').toLowerCase();
  }
  function isFocusable(el: Element): boolean {
    const t = el.getAttribute('tabindex');
    return t !== null && Number(t) >= 0;
  }
  function implicitRole(el: Element): string {
    switch (el.localName) {
      case 'a':
      case 'area':
        return el.hasAttribute('href') ? 'link' : 'generic';
      case 'button':
        return 'button';
      case 'input': {
        const t = inputType(el);
        switch (t) {
          case 'button':
          case 'submit':
          case 'reset':
          case 'image':
          case 'file':
          case 'color':
            return 'button';
          case 'checkbox':
            return 'checkbox';
          case 'radio':
            return 'radio';
          case 'range':
            return 'slider';
          case 'number':
            return 'spinbutton';
          case 'hidden':
            return 'none';
          case 'search':
            return el.hasAttribute('list') ? 'combobox' : 'searchbox';
          default:
            return el.hasAttribute('list') ? 'combobox' : 'textbox';
        }
      }
      case 'textarea':
        return 'textbox';
      case 'select':
        return (el as HTMLSelectElement).multiple || (el as HTMLSelectElement).size > 1 ? 'listbox' : 'combobox';
      case 'option':
        return 'option';
      case 'optgroup':
      case 'fieldset':
      case 'details':
        return 'group';
      case 'img':
        return el.getAttribute('alt') === '' ? 'none' : 'img';
      case 'svg':
        return el.getAttribute('aria-label') || el.querySelector(':scope > title') ? 'img' : 'none';
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        return 'heading';
      case 'ul':
      case 'ol':
      case 'menu':
        return 'list';
      case 'li':
        return 'listitem';
      case 'nav':
        return 'navigation';
      case 'main':
        return 'main';
      case 'header':
        return el.closest('article,aside,main,nav,section') ? 'generic' : 'banner';
      case 'footer':
        return el.closest('article,aside,main,nav,section') ? 'generic' : 'contentinfo';
      case 'aside':
        return 'complementary';
      case 'form':
        return 'form';
      case 'section':
        return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('title') ? 'region' : 'generic';
      case 'search':
        return 'search';
      case 'article':
        return 'article';
      case 'dialog':
        return 'dialog';
      case 'table':
        return 'table';
      case 'caption':
        return 'caption';
      case 'thead':
      case 'tbody':
      case 'tfoot':
        return 'rowgroup';
      case 'tr':
        return 'row';
      case 'td':
        return el.closest('[role=grid],[role=treegrid]') ? 'gridcell' : 'cell';
      case 'th':
        return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
      case 'summary':
        return 'button';
      case 'progress':
        return 'progressbar';
      case 'meter':
        return 'meter';
      case 'output':
        return 'status';
      case 'hr':
        return 'separator';
      case 'p':
        return 'paragraph';
      case 'blockquote':
        return 'blockquote';
      case 'figure':
        return 'figure';
      case 'code':
        return 'code';
      case 'iframe':
      case 'frame':
        return 'iframe';
      case 'dt':
        return 'term';
      case 'dd':
        return 'definition';
      case 'math':
        return 'math';
      default:
        if ((el as HTMLElement).isContentEditable && (el.parentElement === null || !(el.parentElement as HTMLElement).isContentEditable))
          return 'textbox';
        return 'generic';
    }
  }
  function roleOf(el: Element): string {
    const explicit = el.getAttribute('role');
    if (explicit) {
      for (const token of explicit.trim().toLowerCase().split(/\s+/)) {
        if (!KNOWN_ROLES.has(token)) continue;
        if (token === 'none' || token === 'presentation') return isFocusable(el) ? implicitRole(el) : 'none';
        return token;
      }
    }
    return implicitRole(el);
  }
  const isGeneric = (role: string): boolean => role === 'generic' || role === 'none';

  // ── accessible name (a pragmatic subset of accname 1.2) ──
  function byIdIn(el: Element, id: string): Element | null {
    // A detached subtree's root is an element, which has no getElementById.
    const root = el.getRootNode() as Partial<Pick<Document, 'getElementById'>>;
    return root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id);
  }
  /** Text of a subtree for a name: skips aria-hidden and hidden parts, uses alt/aria-label of children. */
  function subtreeText(root: Node, skip: Element | null, depth = 0): string {
    let out = '';
    for (let c: Node | null = root.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === TEXT) out += (c as Text).data;
      else if (isEl(c)) {
        if (c === skip || SKIP_TAGS.has(c.localName)) continue;
        if (c.getAttribute('aria-hidden') === 'true' || c.hasAttribute('hidden')) continue;
        const lbl = c.getAttribute('aria-label');
        if (lbl && lbl.trim()) {
          out += ' ' + lbl + ' ';
          continue;
        }
        if (c.localName === 'img' || c.localName === 'area') {
          out += ' ' + (c.getAttribute('alt') ?? '') + ' ';
          continue;
        }
        if (c.localName === 'input' && ['button', 'submit', 'reset'].includes(inputType(c))) {
          out += ' ' + (c as HTMLInputElement).value + ' ';
          continue;
        }
        if (c.localName === 'select' || c.localName === 'textarea' || c.localName === 'input') {
          out += ' ' + controlValue(c) + ' ';
          continue;
        }
        // Thirty levels of nesting is deeper than any name worth reading; it bounds the recursion.
        const block = depth < 30 ? subtreeText(c.shadowRoot ?? c, skip, depth + 1) : '';
        out += isInlineTag(c.localName) ? block : ' ' + block + ' ';
      }
    }
    return out;
  }
  function isInlineTag(tag: string): boolean {
    return (
      tag === 'span' ||
      tag === 'b' ||
      tag === 'i' ||
      tag === 'em' ||
      tag === 'strong' ||
      tag === 'a' ||
      tag === 'code' ||
      tag === 'small' ||
      tag === 'mark' ||
      tag === 'u' ||
      tag === 'sub' ||
      tag === 'sup' ||
      tag === 'abbr' ||
      tag === 'label'
    );
  }
  function controlValue(el: Element): string {
    if (el.localName === 'select') {
      const s = el as HTMLSelectElement;
      return [...s.selectedOptions].map((o) => norm(o.label || o.textContent)).join(', ');
    }
    if (el.localName === 'input' || el.localName === 'textarea') {
      const i = el as HTMLInputElement;
      if (i.type === 'password') return i.value ? '•'.repeat(Math.min(i.value.length, 8)) : '';
      return i.value;
    }
    return '';
  }
  function accName(el: Element, role: string): string {
    const labelledby = el.getAttribute('aria-labelledby');
    if (labelledby) {
      const parts: string[] = [];
      for (const id of labelledby.split(/\s+/)) {
        const ref = id ? byIdIn(el, id) : null;
        if (!ref) continue;
        const lbl = ref.getAttribute('aria-label');
        parts.push(lbl && lbl.trim() ? lbl : ref === el ? '' : subtreeText(ref, null));
      }
      const n = norm(parts.join(' '));
      if (n) return n;
    }
    const aria = norm(el.getAttribute('aria-label'));
    if (aria) return aria;
    const tag = el.localName;
    if (tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'meter' || tag === 'progress' || tag === 'output') {
      const t = inputType(el);
      if (tag === 'input' && (t === 'button' || t === 'submit' || t === 'reset')) {
        const v = norm((el as HTMLInputElement).value);
        return v || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '');
      }
      if (tag === 'input' && t === 'image') return norm(el.getAttribute('alt')) || norm(el.getAttribute('title')) || 'Submit';
      const labels = (el as HTMLInputElement).labels;
      if (labels && labels.length) {
        const n = norm([...labels].map((l) => subtreeText(l, el)).join(' '));
        if (n) return n;
      }
      const title = norm(el.getAttribute('title'));
      if (title) return title;
      return norm(el.getAttribute('placeholder'));
    }
    if (tag === 'img' || tag === 'area') {
      const alt = norm(el.getAttribute('alt'));
      if (alt) return alt;
    }
    if (tag === 'fieldset') {
      const legend = el.querySelector(':scope > legend');
      if (legend) return norm(subtreeText(legend, null));
    }
    if (tag === 'table') {
      const cap = el.querySelector(':scope > caption');
      if (cap) return norm(subtreeText(cap, null));
    }
    if (tag === 'figure') {
      const cap = el.querySelector(':scope > figcaption');
      if (cap) return norm(subtreeText(cap, null));
    }
    if (tag === 'svg') {
      const t = el.querySelector(':scope > title');
      if (t) return norm(t.textContent);
    }
    if (NAME_FROM_CONTENT.has(role)) {
      const n = norm(subtreeText(el.shadowRoot ?? el, null));
      if (n) return n;
    }
    const title = norm(el.getAttribute('title'));
    if (title) return title;
    if ((tag === 'iframe' || tag === 'frame') && el.getAttribute('name')) return norm(el.getAttribute('name'));
    return '';
  }

  return {
    accName,
    isGeneric,
    roleOf,
    ROLE_TAGS,
    SKIP_TAGS,
    subtreeText,
    byIdIn,
    inputType,
    TEXT_INPUT_TYPES,
    CONTEXT,
    INTERACTIVE,
    NAME_FROM_CONTENT,
    TYPEABLE,
    controlValue,
    isFocusable,
  };
}
