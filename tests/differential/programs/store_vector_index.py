"""LangGraph's memory guide, "semantic search": InMemoryStore with a vector index, searched by
query and filter together, with the fields to embed chosen per store and per item.

The embedding function is the user's own (letter counts, deterministic). Items
are indexed on a nested field and a list's elements (``fields`` paths), one is
put with ``index=False`` and one with its own fields; searches mix ``query`` with
``filter`` operators, ``limit`` and ``offset``; namespaces are listed by prefix,
suffix and depth; the batch API and the async forms give the same.
"""

import asyncio

from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore


def embed(texts):
    return [[float(t.count(c)) for c in "aeiost"] + [0.5] for t in texts]


async def aembed(texts):
    return embed(texts)


def show(items):
    rows = []
    for item in items:
        score = "-" if item.score is None else f"{item.score:.4f}"
        rows.append(f"{'/'.join(item.namespace)}:{item.key}={score}")
    return " ".join(rows)


def fill(store):
    store.put(
        ("docs", "ada"), "a1", {"profile": {"bio": "sees sea otters"}, "tags": ["sea"], "n": 1}
    )
    store.put(
        ("docs", "ada"), "a2", {"profile": {"bio": "eats toast"}, "tags": ["tea", "oats"], "n": 2}
    )
    store.put(("docs", "bob"), "b1", {"profile": {"bio": "sails at sea"}, "tags": [], "n": 3})
    store.put(("docs", "bob"), "b2", {"profile": {"bio": "is a secret"}, "n": 4}, index=False)
    store.put(
        ("docs", "bob"),
        "b3",
        {"profile": {"bio": "x"}, "note": "oats oats", "n": 5},
        index=["note"],
    )
    store.put(("other", "ada", "deep"), "c1", {"profile": {"bio": "sea"}, "n": 6})


store = InMemoryStore(index={"dims": 7, "embed": embed, "fields": ["profile.bio", "tags[*]"]})
fill(store)
print("query:", show(store.search(("docs",), query="sea")))
print("query+filter:", show(store.search(("docs",), query="oats", filter={"n": {"$gt": 1}})))
print("filter ne:", show(store.search(("docs",), filter={"n": {"$ne": 3}, "tags": ["sea"]})))
print("filter lte:", show(store.search((), filter={"n": {"$lte": 2}})))
print("paged:", show(store.search(("docs",), query="tea", limit=2, offset=1)))
print("no query:", show(store.search(("docs", "bob"))))
print("prefix:", store.list_namespaces(prefix=("docs",)))
print("suffix:", store.list_namespaces(suffix=("deep",)))
print("depth 1:", store.list_namespaces(max_depth=1))
print("paged ns:", store.list_namespaces(limit=1, offset=1))
store.put(("docs", "ada"), "a1", {"profile": {"bio": "toast"}, "tags": [], "n": 7})
print("re-put:", show(store.search(("docs", "ada"), query="toast")))
store.delete(("docs", "ada"), "a2")
print("deleted:", show(store.search(("docs", "ada"), query="toast")))
results = store.batch(
    [
        GetOp(("docs", "bob"), "b1"),
        SearchOp(("docs",), filter={"n": 5}, limit=3),
        PutOp(("docs", "bob"), "b9", {"profile": {"bio": "new"}, "n": 9}),
        ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("other",)),)),
        GetOp(("docs", "bob"), "b9"),
    ]
)
print("batch:", results[0].value, show(results[1]), results[2], results[3], results[4])

for bad in [("a.b",), ("",), ("langgraph", "x"), ()]:
    try:
        store.put(bad, "k", {"n": 0})
    except InvalidNamespaceError as error:
        print("refused", bad, type(error).__name__, isinstance(error, ValueError))
print("search missing:", show(store.search(("nothing",), query="sea")))


async def main():
    astore = InMemoryStore(index={"dims": 7, "embed": aembed, "fields": ["profile.bio"]})
    await astore.aput(("docs", "ada"), "a1", {"profile": {"bio": "sees sea otters"}})
    await astore.aput(("docs", "ada"), "a2", {"profile": {"bio": "eats toast"}})
    print("async:", show(await astore.asearch(("docs",), query="sea")))
    item = await astore.aget(("docs", "ada"), "a2")
    print("aget:", item.key, item.namespace, item.value)
    print("alist:", await astore.alist_namespaces())


if __name__ == "__main__":
    asyncio.run(main())
