// A thread as the page shows it, read from the LangGraph Server API: the transcript's entries
// from the state's messages, the branches from the thread's history (its checkpoints as a
// tree), where an edit or a regeneration forks, and the card a pending interrupt asks for.
//
// Messages come in LangChain's wire shape ({type: "human" | "ai" | "tool", content,
// tool_calls: [{id, name, args}], tool_call_id, artifact}) or as chat-completions dicts
// ({role, content, tool_calls: [{id, function: {name, arguments}}]}): both read the same.

/**
 * A message of the state (parsed JSON).
 * @typedef {{ [field: string]: any }} Message
 * A checkpoint of the thread as the API gives it (ThreadState, parsed JSON).
 * @typedef {{ values?: any, next?: string[], tasks?: any[], checkpoint?: any,
 *   parent_checkpoint?: any, metadata?: any, interrupts?: any[] }} Snapshot
 * A history entry before the page normalizes it (entries.js normalizeEntry).
 * @typedef {{ [field: string]: any }} RawEntry
 */

/** The tool through which the model asks the person: its calls are questions, results replies. */
export const ASK_TOOL = "ask_user";

/** @type {Record<string, string>} */
const ROLES = {
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  tool: "tool",
};

/** @param {Message} message */
const roleOf = (message) => ROLES[String(message?.type ?? message?.role ?? "")] ?? "";

/** @param {unknown} content */
export function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((block) =>
        block && typeof block === "object" ? String(block.text ?? "") : String(block),
      )
      .join("");
  return content === null || content === undefined ? "" : String(content);
}

/** @param {unknown} value */
function parsedArguments(value) {
  if (typeof value !== "string") return value && typeof value === "object" ? value : {};
  try {
    const parsed = JSON.parse(value || "{}");
    return parsed && typeof parsed === "object" ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * The tool calls of an assistant message as {id, name, arguments}.
 * @param {Message} message
 * @returns {{ id: string, name: string, arguments: any }[]}
 */
function callsOf(message) {
  const calls = Array.isArray(message?.tool_calls) ? message.tool_calls : [];
  return calls.map((/** @type {any} */ call) => ({
    id: String(call?.id ?? ""),
    name: String(call?.function?.name ?? call?.name ?? ""),
    arguments: parsedArguments(call?.function?.arguments ?? call?.args ?? {}),
  }));
}

/** @param {{ id: string, arguments: any }} call */
function question(call) {
  const args = call.arguments;
  /** @type {RawEntry} */
  const entry = {
    id: call.id,
    kind: "question",
    role: "assistant",
    content: String(args.question ?? ""),
  };
  if (args.reason) entry.reason = String(args.reason);
  if (Array.isArray(args.choices) && args.choices.length) entry.choices = args.choices.map(String);
  return entry;
}

/**
 * One entry per bubble (kinds message, question, reply, tool, note, answer), each with the
 * position of the message it comes from (index).
 * @param {Message[]} messages
 * @returns {RawEntry[]}
 */
export function transcript(messages) {
  /** @type {RawEntry[]} */
  const entries = [];
  /** @type {Map<string, RawEntry>} */
  const tools = new Map();
  const asks = new Set();
  messages.forEach((message, index) => {
    const role = roleOf(message);
    const id = message?.id ? String(message.id) : `m${index}`;
    /** @type {RawEntry[]} */
    const made = [];
    if (role === "user") {
      made.push({ id, kind: "message", role: "user", content: textOf(message.content) });
    } else if (role === "assistant") {
      const text = textOf(message.content);
      const calls = callsOf(message);
      if (text.trim())
        made.push({ id, kind: calls.length ? "note" : "answer", role: "assistant", content: text });
      for (const call of calls) {
        if (call.name === ASK_TOOL) {
          asks.add(call.id);
          made.push(question(call));
          continue;
        }
        const entry = {
          id: call.id,
          kind: "tool",
          role: "assistant",
          name: call.name,
          arguments: call.arguments,
          status: "pending",
          content: "",
        };
        tools.set(call.id, entry);
        made.push(entry);
      }
    } else if (role === "tool") {
      const callId = String(message.tool_call_id ?? "");
      const content = textOf(message.content);
      if (asks.has(callId)) {
        made.push({ id, kind: "reply", role: "user", content });
      } else {
        const entry = tools.get(callId);
        if (entry) {
          const artifact =
            message.artifact && typeof message.artifact === "object" ? message.artifact : {};
          entry.status = String(artifact.decision ?? "ran");
          if (artifact.arguments && typeof artifact.arguments === "object")
            entry.arguments = artifact.arguments;
          entry.content = content;
        }
      }
    }
    for (const entry of made) entries.push({ ...entry, index });
  });
  // Tool entries were filled in place after being listed: copy their final fields.
  return entries.map((entry) =>
    entry.kind === "tool" ? { ...tools.get(entry.id), index: entry.index } : entry,
  );
}

/** @param {Snapshot} snapshot @returns {string} */
export const checkpointOf = (snapshot) => String(snapshot?.checkpoint?.checkpoint_id ?? "");

/** @param {Snapshot} snapshot @returns {string | null} */
const parentOf = (snapshot) => {
  const id = snapshot?.parent_checkpoint?.checkpoint_id;
  return id ? String(id) : null;
};

/** @param {Snapshot} snapshot @returns {string[]} */
const messageIds = (snapshot) =>
  (Array.isArray(snapshot?.values?.messages) ? snapshot.values.messages : []).map(
    (/** @type {Message} */ m, /** @type {number} */ i) => (m?.id ? String(m.id) : `m${i}`),
  );

/**
 * The checkpoints of one thread, newest first as the history lists them, as a tree: a
 * checkpoint with several children is where the conversation branches (an edit or a
 * regeneration ran again from it); a branch is named by its head, the newest checkpoint
 * under that child.
 */
export class Tree {
  /** @param {Snapshot[]} snapshots */
  constructor(snapshots) {
    this.snapshots = snapshots;
    /** @type {Map<string, Snapshot>} */
    this.byId = new Map(snapshots.map((s) => [checkpointOf(s), s]));
    /** @type {Map<string, number>} 0 is the newest */
    this.order = new Map(snapshots.map((s, rank) => [checkpointOf(s), rank]));
    /** @type {Map<string, string[]>} children in creation order */
    this.children = new Map();
    for (const snapshot of [...snapshots].reverse()) {
      const parent = parentOf(snapshot);
      if (parent === null) continue;
      const list = this.children.get(parent) ?? [];
      list.push(checkpointOf(snapshot));
      this.children.set(parent, list);
    }
  }

  /** The checkpoints from `head` up to the thread's first, `head` first. @param {string} head */
  path(head) {
    /** @type {Snapshot[]} */
    const path = [];
    /** @type {string | null} */
    let current = head;
    while (current !== null && this.byId.has(current)) {
      const snapshot = /** @type {Snapshot} */ (this.byId.get(current));
      path.push(snapshot);
      current = parentOf(snapshot);
    }
    return path;
  }

  /** The newest checkpoint under `id`, itself included. @param {string} id */
  newestUnder(id) {
    let newest = id;
    const stack = [id];
    const rank = (/** @type {string} */ c) => this.order.get(c) ?? Infinity;
    while (stack.length) {
      const current = /** @type {string} */ (stack.pop());
      if (rank(current) < rank(newest)) newest = current;
      stack.push(...(this.children.get(current) ?? []));
    }
    return newest;
  }

  /**
   * The checkpoint before message `messageId` on the branch of `head`, or null. Copies of a
   * checkpoint that earlier edits made (source input or fork, with their parent's messages
   * and next nodes) lead to their original, so that every edit of one message forks there.
   * @param {string} head
   * @param {string} messageId
   * @returns {Snapshot | null}
   */
  forkPoint(head, messageId) {
    const path = this.path(head);
    for (let position = 0; position < path.length; position += 1) {
      if (messageIds(path[position]).includes(messageId)) continue;
      if (position === 0) return null;
      let found = path[position];
      for (const parent of path.slice(position + 1)) {
        const copy = ["input", "fork"].includes(found.metadata?.source);
        const sameNext = String(parent.next ?? []) === String(found.next ?? []);
        if (!(copy && sameNext) || String(messageIds(parent)) !== String(messageIds(found))) break;
        found = parent;
      }
      return found;
    }
    return null;
  }

  /**
   * For each fork on the branch of `head`: the message position it changes, and its switch
   * {index, count, heads} (this branch is the index-th of count; heads[k] is branch k + 1's).
   * @param {string} head
   * @returns {[number, { index: number, count: number, heads: string[] }][]}
   */
  branches(head) {
    /** @type {[number, { index: number, count: number, heads: string[] }][]} */
    const found = [];
    const path = this.path(head);
    for (let i = 0; i + 1 < path.length; i += 1) {
      const siblings = this.children.get(checkpointOf(path[i + 1])) ?? [];
      if (siblings.length < 2) continue;
      found.push([
        messageIds(path[i + 1]).length,
        {
          index: siblings.indexOf(checkpointOf(path[i])) + 1,
          count: siblings.length,
          heads: siblings.map((s) => this.newestUnder(s)),
        },
      ]);
    }
    return found;
  }

  /**
   * Where each run on the branch of `head` started: its id and the checkpoint it went on
   * from (null: the thread's beginning), oldest first.
   * @param {string} head
   */
  runs(head) {
    const path = this.path(head).reverse();
    /** @type {{ run_id: string, from_checkpoint: string | null }[]} */
    const runs = [];
    for (const snapshot of path) {
      const runId = snapshot.metadata?.run_id;
      if (!runId || runs.some((r) => r.run_id === runId)) continue;
      runs.push({ run_id: String(runId), from_checkpoint: parentOf(snapshot) });
    }
    return runs;
  }
}

/**
 * The card of a pending interrupt: an approval (a HITL request: action_requests with args)
 * or a question ({question, reason, choices}); null for a value of neither shape.
 * @param {{ id?: unknown, value?: unknown }} interrupt
 * @param {string | null} node the node that asked
 */
export function pendingOf(interrupt, node) {
  const value = /** @type {any} */ (interrupt?.value);
  const base = { interrupt_id: interrupt?.id ?? null, node };
  if (value && typeof value === "object" && Array.isArray(value.action_requests)) {
    return {
      kind: /** @type {const} */ ("approval"),
      ...base,
      action_requests: value.action_requests.map((/** @type {any} */ r) => ({
        ...r,
        arguments: r?.arguments ?? r?.args ?? {},
      })),
      review_configs: Array.isArray(value.review_configs) ? value.review_configs : [],
    };
  }
  if (value && typeof value === "object")
    return {
      kind: /** @type {const} */ ("question"),
      ...base,
      question: String(value.question ?? ""),
      reason: String(value.reason ?? ""),
      ...(Array.isArray(value.choices) && value.choices.length
        ? { choices: value.choices.map(String) }
        : {}),
    };
  return {
    kind: /** @type {const} */ ("question"),
    ...base,
    question: String(value ?? ""),
    reason: "",
  };
}

/**
 * The interrupts waiting at a checkpoint, each with the node that asked.
 * @param {Snapshot} snapshot
 */
export function pendingAt(snapshot) {
  /** @type {ReturnType<typeof pendingOf>[]} */
  const pending = [];
  for (const task of Array.isArray(snapshot?.tasks) ? snapshot.tasks : []) {
    for (const interrupt of Array.isArray(task?.interrupts) ? task.interrupts : [])
      pending.push(pendingOf(interrupt, typeof task.name === "string" ? task.name : null));
  }
  if (!pending.length && Array.isArray(snapshot?.interrupts))
    for (const interrupt of snapshot.interrupts) pending.push(pendingOf(interrupt, null));
  return pending;
}

/**
 * The thread seen from `head` (default: its newest checkpoint) as the page draws it.
 * @param {Tree} tree
 * @param {string | null} head
 */
export function threadView(tree, head) {
  const state = head ? tree.byId.get(head) : tree.snapshots[0];
  if (!state) return null;
  const id = checkpointOf(state);
  const values = state.values && typeof state.values === "object" ? state.values : {};
  const entries = transcript(Array.isArray(values.messages) ? values.messages : []);
  for (const [position, branch] of tree.branches(id)) {
    const entry = entries.find((e) => e.index >= position);
    if (entry) entry.branch = branch;
  }
  const pending = pendingAt(state);
  return {
    checkpoint_id: id,
    messages: entries,
    pending: pending[0] ?? null,
    trace: Array.isArray(values.trace) ? values.trace : [],
    runs: tree.runs(id),
    // Nodes still to run and no question: the turn stopped before its end.
    unfinished: Array.isArray(state.next) && state.next.length > 0 && pending.length === 0,
  };
}
