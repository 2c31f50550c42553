"""Explore the launch space: find raise sites, minimise their triggers, prove fixes.

Imported inside the sglang environment. Every scenario runs sglang's real launch path
(``repro.harnesses._sglang_steps.run_scenario``: parse -> ServerArgs post-init ->
resolve/validate -> model config -> runner -> attention backend construction) in its
own fork. A raise site is the innermost traceback frame, when that frame is sglang code.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from repro.explore._guide import (
    MODEL_HINTS,
    PLATFORM_HINTS,
    Target,
    hinted,
    moves,
    patches,
    repaired_moves,
    targets,
    vocabulary,
)
from repro.explore._pool import run_all
from repro.explore._scenario import (
    GPU,
    HARNESS,
    LAUNCHED,
    SITE,
    STAGES,
    Scenario,
    compact,
    job,
    verdict,
)
from repro.explore._space import Flag, alternatives, build_parser, flags, mutations
from repro.harnesses import _classify as C
from repro.harnesses._simulate import SIMULATED

MAX_ALTERNATIVES = 5  # per flag: removed, and up to four other choices


@dataclass
class Explorer:
    platforms: list[str]
    models: list[str]
    workers: int = 2
    timeout_s: float = 20.0
    cache_path: Path | None = None
    cache: dict[str, dict[str, Any]] = field(default_factory=dict)
    sites: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    runs: int = 0
    cached: int = 0
    config_edits: bool = True  # also try config.json edits the guards point to
    _found: list[Target] | None = field(default=None, init=False, repr=False)  # read once

    def __post_init__(self) -> None:
        self.flag_list: list[Flag] = flags(build_parser())
        self.by_name = {f.name: f for f in self.flag_list}
        if self.cache_path and self.cache_path.is_file():
            for line in self.cache_path.read_text().splitlines():
                with_key = json.loads(line)
                self.cache[with_key["key"]] = with_key["answer"]

    # -- running ---------------------------------------------------------------
    def run(self, scenarios: Iterable[Scenario]) -> dict[str, dict[str, Any]]:
        """Answers for ``scenarios`` (cached ones are not re-run)."""
        todo: dict[str, Scenario] = {}
        out: dict[str, dict[str, Any]] = {}
        for s in scenarios:
            if s.key in self.cache:
                out[s.key] = self.cache[s.key]
                self.cached += 1
            else:
                todo[s.key] = s
        sink = self.cache_path.open("a") if self.cache_path else None
        try:
            jobs = ((k, job(s)) for k, s in todo.items())
            for key, answer in run_all(jobs, self.workers, self.timeout_s):
                small = compact(answer)
                self.cache[key] = out[key] = small
                self.runs += 1
                if sink:
                    sink.write(json.dumps({"key": key, "answer": small}) + "\n")
                    sink.flush()
        finally:
            if sink:
                sink.close()
        return out

    def note(self, scenario: Scenario, answer: dict[str, Any]) -> bool:
        """Record a new site; True when it was not hit before."""
        kind, site = verdict(answer, scenario.platform in SIMULATED)
        if kind != SITE or site is None or site in self.sites:
            return False
        self.sites[site] = {"scenario": scenario, "error": answer["error"]}
        return True

    # -- searching -------------------------------------------------------------
    def explore(
        self,
        deadline: float,
        pairs: int,
        root: Path | None = None,
        per_site: int = 8,
        seed: int = 0,
    ) -> None:
        """Coverage-guided order: every single-flag move on the first platform and model;
        then, for each raise site not hit yet, the flags and values its guards test
        (``_guide``), on the platforms and models its guards name; then repairs of the
        guided moves that stopped at another site first (``repairs``); then the moves that
        raised on the first platform on every other platform (a site's neighbours); then
        random two-flag pairs; then the remaining moves on the other platforms and models."""
        singles = [tuple(m) for f in self.flag_list for m in mutations(f)]
        model, platform = self.models[0], self.platforms[0]
        hot: set[tuple[str, ...]] = set()
        self._batch([Scenario(platform, model, m) for m in [(), *singles]], hot, deadline)
        bases = [Scenario(p, m, ()) for m in self.models for p in self.platforms]
        self._batch(bases, hot, deadline)
        if root is not None and per_site > 0:
            for limit in (max(1, per_site // 4), per_site):
                self._batch(self.guided(root, limit), hot, deadline)
            self._batch(self.repairs(root, per_site), hot, deadline)
        others = self.platforms[1:]
        self._batch([Scenario(p, model, mv) for mv in singles if mv in hot for p in others],
                    hot, deadline)  # fmt: skip
        rng = random.Random(seed)
        clean = [m for m in singles if m not in hot]
        combos = [
            Scenario(platform, model, (*a, *b))
            for a, b in (rng.sample(clean, 2) for _ in range(pairs if len(clean) > 1 else 0))
        ]
        self._batch(combos, hot, deadline)
        elsewhere = [(p, model) for p in others] + [
            (p, m) for m in self.models[1:] for p in self.platforms
        ]
        rest = [Scenario(p, m, mv) for p, m in elsewhere for mv in singles if mv not in hot]
        self._batch(rest, hot, deadline)

    def guided(self, root: Path, limit: int) -> list[Scenario]:
        """Scenarios for the raise sites not hit yet: up to ``limit`` moves each that set
        the flags their guards read, on up to two hinted platforms and models."""
        out: dict[str, Scenario] = {}
        for _, scenario in self._guided(root, limit, self.refused()):
            out.setdefault(scenario.key, scenario)
        return list(out.values())

    def _guided(
        self, root: Path, limit: int, bad: set[tuple[str, ...]]
    ) -> list[tuple[Target, Scenario]]:
        by_dest = self._by_dest()
        found = self._targets(root)
        vocab = vocabulary(found)
        out: list[tuple[Target, Scenario]] = []
        for target in found:
            if (target.file, target.line) in self.sites:
                continue
            platforms = hinted(target.text, PLATFORM_HINTS, self.platforms)[:2]
            models = hinted(target.text, MODEL_HINTS, self.models)[:2]
            flag_moves = moves(target, by_dest, limit, vocab, bad)
            edits = patches(target, limit) if self.config_edits else []
            # config.json edits alone, and with the guards' first flag move.
            tried = [(m, ()) for m in flag_moves] + [(e, p) for p in edits for e in
                                                      [(), *flag_moves[:1]]]  # fmt: skip
            for extra, patch in tried[: limit + len(edits)]:
                for p in platforms or self.platforms[:1]:
                    for m in models or self.models[:1]:
                        out.append((target, Scenario(p, m, extra, patch)))
        return out

    def _targets(self, root: Path) -> list[Target]:
        if self._found is None:
            self._found = targets(root, self._by_dest())
        return self._found

    def _by_dest(self) -> dict[str, Flag]:
        """The flags explored, by the ServerArgs field they set (``flag_list`` may be
        narrowed after construction, so this is not kept)."""
        return {f.dest: f for f in self.flag_list if f.dest}

    def repairs(self, root: Path, limit: int, per_site: int = 4) -> list[Scenario]:
        """Second tries for the sites not hit yet whose guided moves stopped at another
        site first (a prerequisite check, usually): the same move with one flag that the
        other site's guards read changed (removed, or set to another value), so the run
        gets past that check to the guard it was meant for."""
        by_dest = self._by_dest()
        by_site = {(t.file, t.line): t for t in self._targets(root)}
        bad = self.refused()
        out: dict[str, Scenario] = {}
        per_target: dict[tuple[str, int], int] = {}
        for target, scenario in self._guided(root, limit, bad):
            site = (target.file, target.line)
            answer = self.cache.get(scenario.key)
            if answer is None or site in self.sites:
                continue
            kind, blocker = verdict(answer, scenario.platform in SIMULATED)
            other = by_site.get(blocker) if kind == SITE and blocker else None
            if other is None:
                continue
            for tries in repaired_moves(self.fragments(scenario.extra), other, by_dest, bad):
                if per_target.get(site, 0) >= per_site:
                    continue
                for extra in tries:
                    repaired = replace(scenario, extra=_join(extra))
                    if repaired.key not in self.cache and repaired.key not in out:
                        out[repaired.key] = repaired
                        per_target[site] = per_target.get(site, 0) + 1
        return list(out.values())

    def refused(self) -> set[tuple[str, ...]]:
        """Single moves sglang's parser refused on the primary platform and model (a
        free-string flag that wants JSON, say): a combination with one fails the same way."""
        out: set[tuple[str, ...]] = set()
        for key, answer in self.cache.items():
            platform, model, extra = json.loads(key)[:3]
            error = answer.get("error") or {}
            first = (platform, model) == (self.platforms[0], self.models[0])
            if first and error.get("stage") == "parse" and not error.get("in_sglang"):
                out.add(tuple(extra))
        return out

    def _batch(self, scenarios: list[Scenario], hot: set, deadline: float, chunk: int = 64) -> None:
        done = f"{self.runs} runs, {self.cached} cached, {len(self.sites)} sites"
        print(f"[sweep] {len(scenarios)} scenarios; so far {done}", file=sys.stderr, flush=True)
        for start in range(0, len(scenarios), chunk):
            if time.monotonic() > deadline:
                return
            part = scenarios[start : start + chunk]
            answers = self.run(part)
            for s in part:
                if verdict(answers[s.key], s.platform in SIMULATED)[0] == SITE:
                    hot.add(s.extra)
                self.note(s, answers[s.key])

    # -- minimising and fixing ------------------------------------------------------
    def fragments(self, extra: tuple[str, ...]) -> list[tuple[str, ...]]:
        """Split argv into flag fragments (flag + its value, if any)."""
        out: list[list[str]] = []
        for token in extra:
            if token.startswith("--"):
                out.append([token])
            elif out:
                out[-1].append(token)
        return [tuple(f) for f in out]

    def minimize(self, site: tuple[str, int], scenario: Scenario) -> Scenario:
        """Delta debugging over flag fragments: the smallest set still raising ``site``."""
        frags = self.fragments(scenario.extra)
        n = 2
        while len(frags) >= 1:
            size = max(1, len(frags) // n)
            subsets = [frags[i : i + size] for i in range(0, len(frags), size)]
            candidates = [[f for f in frags if f not in sub] for sub in subsets]  # complements
            scen = [replace(scenario, extra=_join(c)) for c in candidates]
            answers = self.run(scen)
            hit = next(
                (c for c, s in zip(candidates, scen, strict=True) if self._hits(s, answers, site)),
                None,
            )
            if hit is not None:
                frags = hit
                n = max(n - 1, 2)
                if not frags:
                    break
                continue
            if size == 1:
                break
            n = min(len(frags), n * 2)
        best = replace(scenario, extra=_join(frags))
        for item in scenario.patch if len(scenario.patch) > 1 else ():  # config edits, one by one
            fewer = best.without_edit(item)
            if self._hits(fewer, self.run([fewer]), site):
                best = fewer
        return best

    def _hits(self, s: Scenario, answers: dict[str, Any], site: tuple[str, int]) -> bool:
        return verdict(answers[s.key], s.platform in SIMULATED)[1] == site

    def fixes(self, site: tuple[str, int], trigger: Scenario, stage: str) -> list[dict[str, Any]]:
        """Each flag of the trigger removed, or set to each of its other choices."""
        frags = self.fragments(trigger.extra)
        candidates: list[tuple[str, Scenario]] = []
        for i, frag in enumerate(frags):
            flag = self.by_name.get(frag[0]) or self.by_name.get("--" + frag[0][5:])
            options = (alternatives(flag, list(frag)) if flag else [[]])[:MAX_ALTERNATIVES]
            for alt in options:
                rest = (
                    [*frags[:i], tuple(alt), *frags[i + 1 :]] if alt else frags[:i] + frags[i + 1 :]
                )
                change = f"set {' '.join(alt)}" if alt else f"remove {' '.join(frag)}"
                candidates.append((change, replace(trigger, extra=_join(rest))))
        for item in trigger.patch:  # each config.json edit undone
            change = f"restore config.json {item[0]} as shipped"
            candidates.append((change, trigger.without_edit(item)))
        answers = self.run(s for _, s in candidates)
        out = []
        for change, s in candidates:
            answer = answers[s.key]
            kind, at = verdict(answer, s.platform in SIMULATED)
            reached = (answer.get("error") or {}).get("stage")
            if kind == LAUNCHED:
                outcome = C.FIXED
            elif at == site:
                outcome = C.FIX_FAILS
            elif kind == GPU and _later(reached, stage):
                outcome = C.FIXED  # past the failing point; going further needs the GPU tier
            elif kind in (GPU, HARNESS):
                outcome = kind
            else:
                outcome = C.FIX_BREAKS
            out.append(
                {
                    "change": change,
                    "command": s.command(),
                    "outcome": outcome,
                    "reached": "launched" if kind == LAUNCHED else reached,
                    "error": _brief(answer.get("error")) if kind != LAUNCHED else None,
                }
            )
        return out


def _later(reached: str | None, failed: str) -> bool:
    order = {s: i for i, s in enumerate(STAGES)}
    return order.get(reached or "", -1) > order.get(failed, 99)


def _brief(error: dict[str, Any] | None) -> dict[str, Any] | None:
    if not error:
        return None
    return {k: error.get(k) for k in ("class", "message", "file", "line", "stage")}


def _join(frags: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    return tuple(t for f in frags for t in f)


def code_hash(root: Path) -> str:
    """Hash of the code an answer depends on: the harness and how a scenario runs, not
    the search (``_guide``, ``Explorer``), so a better search reuses cached answers."""
    digest = hashlib.sha256()
    answering = [root / "explore" / "_scenario.py", root / "explore" / "_pool.py"]
    for path in sorted([*root.glob("harnesses/_*.py"), *answering]):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
