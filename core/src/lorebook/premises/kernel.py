"""Derive what a context's premises support, refute, or leave unknown, with proofs.

Forward chaining to a fixed point: every fact of every source is known; a rule whose
premises all match known atoms (one consistent binding of its variables) makes its head
known. Atoms are ground and the terms finite (no function symbols), so the fixed point is
reached in a bounded number of rounds whatever the rules, cycles included. Each atom keeps
its first proof: the fact's source, or the rule's source and the proofs of its premises.

Asking a goal derives both it and its opposite: ``supported`` when only the goal is derived,
``refuted`` when only its opposite is, ``conflict`` when both are, ``unknown`` when neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from lorebook.premises.model import Atom, Rule, is_variable

Verdict = Literal["supported", "refuted", "conflict", "unknown"]

MAX_DERIVED = 50_000
"""Atoms a derivation may hold; past it the derivation stops and says so."""


@dataclass(frozen=True, slots=True)
class SourceBundle:
    """What one premise source says: its facts and rules, and what it cites."""

    id: str
    facts: tuple[Atom, ...] = ()
    rules: tuple[Rule, ...] = ()
    cites: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Proof:
    """How an atom was derived: a fact of ``source``, or its ``rule`` over ``premises``."""

    atom: Atom
    source: str
    rule: Rule | None = None
    premises: tuple[Proof, ...] = ()

    def sources(self) -> set[str]:
        """Every source the proof rests on."""
        found = {self.source}
        for premise in self.premises:
            found |= premise.sources()
        return found

    def lines(self, depth: int = 0) -> list[str]:
        """The proof as indented lines, the conclusion first."""
        how = f"rule {self.rule}" if self.rule is not None else "fact"
        out = [f"{'  ' * depth}{self.atom}   ({how}; source {self.source})"]
        for premise in self.premises:
            out += premise.lines(depth + 1)
        return out

    def as_json(self) -> dict[str, object]:
        """A JSON-ready tree."""
        return {
            "atom": str(self.atom),
            "source": self.source,
            "rule": None if self.rule is None else str(self.rule),
            "premises": [p.as_json() for p in self.premises],
        }


@dataclass(slots=True)
class Derivation:
    """Every atom a context's premises derive, each with its first proof."""

    proofs: dict[Atom, Proof] = field(default_factory=dict)
    truncated: bool = False

    def conflicts(self) -> list[tuple[Proof, Proof]]:
        """Pairs (positive proof, negative proof) of atoms derived both ways."""
        pairs = []
        for atom, proof in sorted(self.proofs.items()):
            if not atom.negated and (other := self.proofs.get(atom.opposite())) is not None:
                pairs.append((proof, other))
        return pairs


def _bind(pattern: Atom, atom: Atom, binding: dict[str, str]) -> dict[str, str] | None:
    if (pattern.predicate, pattern.negated, pattern.scope) != (
        atom.predicate,
        atom.negated,
        atom.scope,
    ):
        return None
    out = dict(binding)
    for term, value in ((pattern.subject, atom.subject), (pattern.object, atom.object)):
        if is_variable(term):
            if out.setdefault(term, value) != value:
                return None
        elif term != value:
            return None
    return out


def _ground(pattern: Atom, binding: dict[str, str]) -> Atom:
    return Atom(
        pattern.predicate,
        binding.get(pattern.subject, pattern.subject),
        binding.get(pattern.object, pattern.object),
        pattern.negated,
        pattern.scope,
    )


def _matches(
    premises: tuple[Atom, ...], proofs: dict[Atom, Proof], binding: dict[str, str]
) -> list[tuple[dict[str, str], tuple[Proof, ...]]]:
    """Every binding under which all ``premises`` are known, with the premises' proofs."""
    if not premises:
        return [(binding, ())]
    first, rest = premises[0], premises[1:]
    found = []
    for atom, proof in proofs.items():
        if (extended := _bind(first, atom, binding)) is not None:
            for full, tail in _matches(rest, proofs, extended):
                found.append((full, (proof, *tail)))
    return found


def derive(bundles: list[SourceBundle], *, limit: int = MAX_DERIVED) -> Derivation:
    """The fixed point of ``bundles``' facts and rules (sources in the order given)."""
    derivation = Derivation()
    proofs = derivation.proofs
    for bundle in bundles:
        for fact in bundle.facts:
            proofs.setdefault(fact, Proof(fact, bundle.id))
    rules = [(bundle.id, rule) for bundle in bundles for rule in bundle.rules]
    changed = True
    while changed:
        changed = False
        for source, rule in rules:
            for binding, premises in _matches(rule.premises, dict(proofs), {}):
                head = _ground(rule.head, binding)
                if head in proofs:
                    continue
                if len(proofs) >= limit:
                    derivation.truncated = True
                    return derivation
                proofs[head] = Proof(head, source, rule, premises)
                changed = True
    return derivation


@dataclass(frozen=True, slots=True)
class Answer:
    """The verdict on a goal, with the proofs behind it."""

    goal: Atom
    verdict: Verdict
    proof: Proof | None
    counter: Proof | None
    truncated: bool = False

    def sources(self) -> list[str]:
        """The sources the verdict rests on."""
        found: set[str] = set()
        for proof in (self.proof, self.counter):
            if proof is not None:
                found |= proof.sources()
        return sorted(found)

    def as_json(self) -> dict[str, object]:
        """The answer as JSON: the shape ``lorebook premise ask --json`` and MCP give."""
        return {
            "goal": str(self.goal),
            "verdict": self.verdict,
            "proof": None if self.proof is None else self.proof.as_json(),
            "counter_proof": None if self.counter is None else self.counter.as_json(),
            "sources": self.sources(),
            "truncated": self.truncated,
        }


def ask(bundles: list[SourceBundle], goal: Atom) -> Answer:
    """Whether ``bundles`` support, refute, both or neither ``goal``."""
    derivation = derive(bundles)
    proof = derivation.proofs.get(goal)
    counter = derivation.proofs.get(goal.opposite())
    verdict: Verdict
    if proof is not None and counter is not None:
        verdict = "conflict"
    elif proof is not None:
        verdict = "supported"
    elif counter is not None:
        verdict = "refuted"
    else:
        verdict = "unknown"
    return Answer(goal, verdict, proof, counter, derivation.truncated)


__all__ = ["Answer", "Derivation", "Proof", "SourceBundle", "Verdict", "ask", "derive"]
