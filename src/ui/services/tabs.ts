/** Which tabs of this app are open in the browser, so a tab can tell its own saved work from another's. */

const TAB_KEY = 'netmortem.tab';
const CHANNEL = 'netmortem-tabs';
// Long enough for another tab's event loop to answer a roll call, short enough not to hold up the start.
const ANSWER_MS = 250;

let tabId = '';

function newId(): string {
  // getRandomValues works on plain http too, where randomUUID (secure contexts only) does not.
  return [...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

interface TabMessage {
  type: 'roll-call' | 'here';
  tab?: string;
}

/**
 * Joins the app's open tabs: answers their roll calls from now on, and returns this tab's id (kept across reloads in
 * sessionStorage) and the ids of the other open tabs. A duplicated tab inherits the original's id and takes a new one.
 */
export async function joinTabs(): Promise<{ tab: string; open: Set<string> }> {
  const open = new Set<string>();
  let stored: string | null = null;
  try {
    stored = sessionStorage.getItem(TAB_KEY);
  } catch {
    // Storage can be refused (a sandboxed frame, a privacy setting): every load is then a new tab.
  }
  if (typeof BroadcastChannel === 'function') {
    const channel = new BroadcastChannel(CHANNEL);
    channel.onmessage = (event: MessageEvent<TabMessage>) => {
      const message = event.data;
      if (message.type === 'roll-call' && tabId !== '') channel.postMessage({ type: 'here', tab: tabId } satisfies TabMessage);
      else if (message.type === 'here' && typeof message.tab === 'string') open.add(message.tab);
    };
    channel.postMessage({ type: 'roll-call' } satisfies TabMessage);
    await new Promise((resolve) => setTimeout(resolve, ANSWER_MS));
  }
  tabId = stored !== null && !open.has(stored) ? stored : newId();
  try {
    sessionStorage.setItem(TAB_KEY, tabId);
  } catch {
    // As above: without sessionStorage a reload counts as a new tab.
  }
  return { tab: tabId, open };
}
