/**
 * Roles (a pragmatic subset of ARIA in HTML), read from the DOM the way the snapshot, target matching
 * and the steps name elements; the role lists the other modules share.
 */
export function rolesModule() {
  const KNOWN_ROLES = new Set(
    (
      'alert alertdialog application article banner blockquote button caption cell checkbox code ' +
      'columnheader combobox complementary contentinfo definition deletion dialog directory document ' +
      'emphasis feed figure form generic grid gridcell group heading img insertion link list listbox ' +
      'listitem log main mark marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter ' +
      'navigation none note option paragraph presentation progressbar radio radiogroup region row rowgroup ' +
      'rowheader scrollbar search searchbox separator slider spinbutton status strong subscript superscript ' +
      'switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem ' +
      'iframe'
    ).split(' '),
  );
  const INTERACTIVE = new Set(
    (
      'button link textbox searchbox spinbutton combobox listbox option checkbox radio switch slider tab ' +
      'menuitem menuitemcheckbox menuitemradio treeitem'
    ).split(' '),
  );
  const CONTEXT = new Set(
    (
      'dialog alertdialog form navigation search region main list listbox menu menubar tablist radiogroup ' +
      'grid table tree treegrid group toolbar'
    ).split(' '),
  );
  const NAME_FROM_CONTENT = new Set(
    (
      'button link checkbox radio switch option heading tab menuitem menuitemcheckbox menuitemradio ' +
      'treeitem cell gridcell columnheader rowheader tooltip'
    ).split(' '),
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
  // Tags whose implicit role does not depend on attributes or context.
  const TAG_ROLES = new Map(
    (
      'button:button textarea:textbox option:option optgroup:group fieldset:group details:group h1:heading h2:heading ' +
      'h3:heading h4:heading h5:heading h6:heading ul:list ol:list menu:list li:listitem nav:navigation main:main ' +
      'aside:complementary form:form search:search article:article dialog:dialog table:table caption:caption ' +
      'thead:rowgroup tbody:rowgroup tfoot:rowgroup tr:row summary:button progress:progressbar meter:meter ' +
      'output:status hr:separator p:paragraph blockquote:blockquote figure:figure code:code iframe:iframe ' +
      'frame:iframe dt:term dd:definition math:math'
    )
      .split(' ')
      .map((p) => p.split(':') as [string, string]),
  );
  function inputRole(el: Element): string {
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
  function implicitRole(el: Element): string {
    const fixed = TAG_ROLES.get(el.localName);
    if (fixed !== undefined) return fixed;
    switch (el.localName) {
      case 'a':
      case 'area':
        return el.hasAttribute('href') ? 'link' : 'generic';
      case 'input':
        return inputRole(el);
      case 'select':
        return (el as HTMLSelectElement).multiple || (el as HTMLSelectElement).size > 1 ? 'listbox' : 'combobox';
      case 'img':
        return el.getAttribute('alt') === '' ? 'none' : 'img';
      case 'svg':
        return el.getAttribute('aria-label') || el.querySelector(':scope > title') ? 'img' : 'none';
      case 'header':
        return el.closest('article,aside,main,nav,section') ? 'generic' : 'banner';
      case 'footer':
        return el.closest('article,aside,main,nav,section') ? 'generic' : 'contentinfo';
      case 'section':
        return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('title') ? 'region' : 'generic';
      case 'td':
        return el.closest('[role=grid],[role=treegrid]') ? 'gridcell' : 'cell';
      case 'th':
        return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
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

  return {
    isGeneric,
    roleOf,
    ROLE_TAGS,
    SKIP_TAGS,
    inputType,
    TEXT_INPUT_TYPES,
    CONTEXT,
    INTERACTIVE,
    NAME_FROM_CONTENT,
    TYPEABLE,
    isFocusable,
  };
}
