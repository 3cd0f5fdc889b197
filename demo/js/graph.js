// The graph view: the assistant's graph (GET /assistants/{id}/graph through the SDK; from a
// worker whose server does not answer it yet, {op: "graph"} -> {type: "graph", nodes,
// edges}) as an inline SVG, nodes ranked by their longest path from the start, the node running now and
// the node that asked marked by outline and named in a text legend.

import { $, isWide } from "./dom.js";
import { API_URL, graphOf, statusOf } from "./api.js";
import { STAGE_LABELS } from "./controls.js";
import { post } from "./protocol.js";
import { active } from "./store.js";

const NODE_W = 128;
const NODE_H = 32;
const GAP_X = 24;
const GAP_Y = 30;
const PAD = 14;

/**
 * @import { WorkerMessage } from "./store.js"
 * @typedef {{ id: string, name: string }} GraphNode
 * @typedef {{ source: string, target: string, conditional: boolean }} GraphEdge
 * @typedef {{ x: number, y: number }} Point
 * @typedef {{ asking: string | null, running: string | null }} Marks
 */

/** @type {{ nodes: GraphNode[] | null, edges: GraphEdge[], requested: boolean }} */
const graph = { nodes: null, edges: [], requested: false };

/**
 * The page's <svg> element, parsed from index.html, gives the SVG namespace.
 * @param {string} tag
 * @param {Record<string, string | number>} [attributes]
 * @param {string} [text]
 */
function svg(tag, attributes = {}, text) {
  const el = document.createElementNS($("graph-svg", SVGSVGElement).namespaceURI, tag);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, String(value));
  if (text !== undefined) el.textContent = text;
  return el;
}

// Longest-path ranks; an edge back to a node already on the path (a loop) is left out.
/**
 * @param {GraphNode[]} nodes
 * @param {GraphEdge[]} edges
 * @returns {Map<string, number>}
 */
function ranks(nodes, edges) {
  /** @type {Map<string, string[]>} */
  const out = new Map(nodes.map((n) => [n.id, []]));
  for (const e of edges) out.get(e.source)?.push(e.target);
  /** @type {Map<string, number>} */
  const rank = new Map();
  const visiting = new Set();
  /** @type {(id: string) => number} */
  const depth = (id) => {
    const known = rank.get(id);
    if (known !== undefined) return known;
    visiting.add(id);
    let best = 0;
    for (const e of edges) {
      if (e.target === id && !visiting.has(e.source) && out.has(e.source))
        best = Math.max(best, depth(e.source) + 1);
    }
    visiting.delete(id);
    rank.set(id, best);
    return best;
  };
  for (const n of nodes) depth(n.id);
  return rank;
}

/** @param {GraphNode[]} nodes @param {GraphEdge[]} edges */
function layout(nodes, edges) {
  const rank = ranks(nodes, edges);
  /** @type {string[][]} */
  const rows = [];
  for (const n of nodes) (rows[rank.get(n.id) ?? 0] ??= []).push(n.id); // ranks has every node
  const widest = Math.max(1, ...rows.map((r) => r?.length ?? 0));
  const width = PAD * 2 + widest * NODE_W + (widest - 1) * GAP_X;
  /** @type {Map<string, Point>} */
  const place = new Map();
  rows.forEach((row, r) => {
    const rowWidth = row.length * NODE_W + (row.length - 1) * GAP_X;
    row.forEach((id, i) => {
      place.set(id, {
        x: (width - rowWidth) / 2 + i * (NODE_W + GAP_X),
        y: PAD + r * (NODE_H + GAP_Y),
      });
    });
  });
  return { place, rank, width, height: PAD * 2 + rows.length * NODE_H + (rows.length - 1) * GAP_Y };
}

/** @param {Point} from @param {Point} to @param {boolean} back */
function edgePath(from, to, back) {
  const x1 = from.x + NODE_W / 2;
  const x2 = to.x + NODE_W / 2;
  if (!back) return `M ${x1} ${from.y + NODE_H} L ${x2} ${to.y}`;
  // A loop goes back up along the right side.
  const side = Math.max(from.x, to.x) + NODE_W;
  return `M ${from.x + NODE_W} ${from.y + NODE_H / 2} C ${side + 30} ${from.y}, ${side + 30} ${to.y + NODE_H}, ${to.x + NODE_W} ${to.y + NODE_H / 2}`;
}

/** @param {GraphNode[]} nodes @param {GraphEdge[]} edges @param {Marks} marks */
function draw(nodes, edges, marks) {
  const { place, rank, width, height } = layout(nodes, edges);
  const names = nodes.map((n) => n.name ?? n.id);
  const root = $("graph-svg", SVGSVGElement);
  root.replaceChildren();
  for (const [name, value] of Object.entries({
    viewBox: `0 0 ${width + 40} ${height}`,
    width: width + 40,
    height,
  })) {
    root.setAttribute(name, String(value));
  }
  root.setAttribute("aria-label", `Assistant graph: ${names.join(", ")}`);
  const defs = svg("defs");
  const marker = svg("marker", {
    id: "graph-arrow",
    viewBox: "0 0 10 10",
    refX: 9,
    refY: 5,
    markerWidth: 7,
    markerHeight: 7,
    orient: "auto-start-reverse",
  });
  marker.append(svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "graph-arrowhead" }));
  defs.append(marker);
  root.append(defs);
  for (const e of edges) {
    const from = place.get(e.source);
    const to = place.get(e.target);
    if (!from || !to) continue;
    const back = (rank.get(e.target) ?? 0) <= (rank.get(e.source) ?? 0);
    root.append(
      svg("path", {
        d: edgePath(from, to, back),
        class: `graph-edge${e.conditional ? " graph-edge-conditional" : ""}`,
        "marker-end": "url(#graph-arrow)",
        "data-source": e.source,
        "data-target": e.target,
      }),
    );
  }
  for (const n of nodes) {
    const at = place.get(n.id);
    if (!at) continue;
    const state = n.id === marks.asking ? "asking" : n.id === marks.running ? "running" : "idle";
    const terminal = n.id.startsWith("__") && n.id.endsWith("__");
    const g = svg("g", {
      class: `graph-node${terminal ? " graph-terminal" : ""}`,
      "data-node": n.id,
      "data-state": state,
    });
    g.append(
      svg("rect", {
        x: at.x,
        y: at.y,
        width: NODE_W,
        height: NODE_H,
        rx: terminal ? NODE_H / 2 : 6,
      }),
    );
    const prefix = state === "running" ? "▶ " : state === "asking" ? "? " : "";
    g.append(
      svg(
        "text",
        {
          x: at.x + NODE_W / 2,
          y: at.y + NODE_H / 2,
          "text-anchor": "middle",
          "dominant-baseline": "central",
        },
        prefix + (n.name ?? n.id),
      ),
    );
    root.append(g);
  }
  return root;
}

// The node that runs after `node` finished, when the graph says so unambiguously.
/** @param {string} node */
export function nextNode(node) {
  const targets = graph.edges.filter((e) => e.source === node).map((e) => e.target);
  return targets.length === 1 && !targets[0].startsWith("__") ? targets[0] : null;
}

export const firstNode = () => nextNode("__start__");

export function renderGraph() {
  if ($("graph-panel").hidden) return;
  const v = active();
  const asking = v.state === "waiting" && v.pending ? (v.pending.node ?? null) : null;
  const running = v.state === "running" ? (v.runningNode ?? null) : null;
  const legend = $("graph-legend");
  legend.dataset.running = running ?? "";
  legend.dataset.asking = asking ?? "";
  if (asking) legend.textContent = `Waiting for you: ${asking} (marked “?”).`;
  else if (running) legend.textContent = `Running now: ${running} (marked “▶”).`;
  else legend.textContent = "Nothing is running.";
  $("graph-empty").hidden = Boolean(graph.nodes);
  $("graph-svg", SVGSVGElement).toggleAttribute("hidden", !graph.nodes); // an SVG element has no hidden property
  if (graph.nodes) draw(graph.nodes, graph.edges, { asking, running });
}

/** @param {WorkerMessage} msg */
export function onGraph(msg) {
  graph.nodes = (Array.isArray(msg.nodes) ? msg.nodes : [])
    .filter((/** @type {any} */ n) => n && typeof n.id === "string")
    .map((/** @type {any} */ n) => ({
      id: n.id,
      name:
        typeof n.name === "string"
          ? n.name
          : typeof n.data === "string"
            ? n.data
            : typeof n.data?.name === "string"
              ? n.data.name
              : n.id,
    }));
  graph.edges = (Array.isArray(msg.edges) ? msg.edges : [])
    .filter(
      (/** @type {any} */ e) => e && typeof e.source === "string" && typeof e.target === "string",
    )
    .map((/** @type {any} */ e) => ({
      source: e.source,
      target: e.target,
      conditional: e.conditional === true,
    }));
  renderGraph();
}

// Whether an update's key names a node of the graph (and not a task a node called); before
// the graph is read, the stages the page names.
/** @param {string} name */
export function isGraphNode(name) {
  if (graph.nodes) return graph.nodes.some((n) => n.id === name);
  return Object.hasOwn(STAGE_LABELS, name) && name !== "started";
}

// Reads the graph, once, when the view first opens.
export function loadGraph() {
  if (graph.requested) return;
  graph.requested = true;
  graphOf().then(
    (found) => onGraph({ type: "graph", ...found }),
    (error) => {
      // A worker whose server has no graph route yet describes the graph itself.
      if (!API_URL && statusOf(error) === 404) post({ op: "graph" });
      else {
        graph.requested = false;
        $("graph-empty").textContent = `The graph could not be read: ${error.message}`;
      }
    },
  );
}

/** @param {boolean} open */
export function setGraphOpen(open) {
  $("graph-panel").hidden = !open;
  $("toggle-graph").setAttribute("aria-expanded", String(open));
  document.body.classList.toggle("graph-open", open);
  if (open) loadGraph();
  renderGraph();
}

export function initGraph() {
  $("toggle-graph").addEventListener("click", () => {
    const opening = $("graph-panel").hidden !== false;
    setGraphOpen(opening);
    if (opening && !isWide()) $("close-graph").focus();
  });
  $("close-graph").addEventListener("click", () => {
    setGraphOpen(false);
    $("toggle-graph").focus();
  });
}
