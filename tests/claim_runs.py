"""One quick-scope run per claim, shared by the verdict test and the per-paper tests that
recompute a claim's numbers independently."""

import functools

import proofs_checks.catalogue as cat


@functools.lru_cache(maxsize=None)
def quick_outcome(cid: str) -> cat.Outcome:
    (c,) = cat.select(None, [cid])
    return cat.run_claim(c, quick=True)


def run(cid: str) -> cat.Verdict:
    """The quick-scope verdict of claim ``cid`` (a crashed check fails the calling test)."""
    o = quick_outcome(cid)
    assert not o.crashed, o.verdict.evidence
    return o.verdict


def clear_catalogue_caches() -> None:
    """Forget what the claim modules memoised (DPBench arrays and values computed from them are
    cached per process by dataset name, not by folder)."""
    import sys

    for name, module in list(sys.modules.items()):
        if name.startswith("proofs_checks.") and module is not None:
            for obj in vars(module).values():
                if callable(getattr(obj, "cache_clear", None)):
                    obj.cache_clear()
