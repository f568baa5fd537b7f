#!/usr/bin/env python3
"""Today's trained verifier on CLIMATE-FEVER's labelled evidence (issue 40's baseline).

`folds CLAIMS WORK`: five folds grouped by claim (the claims ordered by `claim_id`, claim i in fold
i % 5). Per fold, in WORK/fold<f>/:
  train.jsonl   the other folds' claims with their 5 evidence sentences, labelled by `claim_label`
                (SUPPORTS True, REFUTES False, DISPUTED Conflicting; NOT_ENOUGH_INFO claims left
                out: the trained verifier learns three classes and abstains for the fourth);
  claims.jsonl  the fold's claims, all four labels, with their 5 sentences;
  swapped.jsonl the same claims, each with the next claim's sentences (the fold's order, wrapped);
  pairs.jsonl   each of the fold's claim–sentence pairs as one example (id `claim:k`, one sentence),
                labelled by the annotators' `evidence_label` in `stance`.

`score WORK`: reads the predictions (claims.pred, swapped.pred, pairs.pred in each fold) and prints
  - stance: each pair's verdict read as a stance (True supports, False refutes, Not Enough Info
    and Conflicting do not bear on the claim) against the annotators' label — accuracy and macro-F1
    over the three stances (scikit-learn);
  - claim verdicts: accuracy and macro-F1 over the T/F/C claims (3 classes; a Not Enough Info
    answer is a miss), and over all claims with Not Enough Info as a fourth class;
  - evidence matters: the share of claims whose verdict changes (to another verdict, or to Not
    Enough Info) when their sentences are swapped for another claim's, with the abstention rule
    (claims.pred, swapped.pred) and without it (claims.plain.pred, swapped.plain.pred).
"""
import json
import sys
from pathlib import Path

from sklearn.metrics import accuracy_score, f1_score

FOLDS = 5
CLAIM_LABELS = {"SUPPORTS": "True", "REFUTES": "False", "DISPUTED": "Conflicting", "NOT_ENOUGH_INFO": "Not Enough Info"}
STANCE_OF_VERDICT = {"True": "SUPPORTS", "False": "REFUTES", "Conflicting": "NOT_ENOUGH_INFO", "Not Enough Info": "NOT_ENOUGH_INFO"}


def read_claims(path):
    claims = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    return sorted(claims, key=lambda c: int(c["claim_id"]))


def write(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def folds(claims_path, work):
    claims = read_claims(claims_path)
    for f in range(FOLDS):
        out = Path(work) / f"fold{f}"
        out.mkdir(parents=True, exist_ok=True)
        held = [c for i, c in enumerate(claims) if i % FOLDS == f]
        train = [c for i, c in enumerate(claims) if i % FOLDS != f and c["claim_label"] != "NOT_ENOUGH_INFO"]
        sentences = lambda c: [e["evidence"] for e in c["evidences"]]
        write(out / "train.jsonl", [{"id": c["claim_id"], "claim": c["claim"], "evidence": sentences(c), "label": CLAIM_LABELS[c["claim_label"]]} for c in train])
        write(out / "claims.jsonl", [{"id": c["claim_id"], "claim": c["claim"], "evidence": sentences(c), "label": CLAIM_LABELS[c["claim_label"]]} for c in held])
        write(out / "swapped.jsonl", [{"id": c["claim_id"], "claim": c["claim"], "evidence": sentences(held[(i + 1) % len(held)])} for i, c in enumerate(held)])
        write(out / "pairs.jsonl", [{"id": f"{c['claim_id']}:{k}", "claim": c["claim"], "evidence": [e["evidence"]], "stance": e["evidence_label"]} for c in held for k, e in enumerate(c["evidences"])])


def predictions(path):
    return {p["id"]: p["label"] for p in map(json.loads, open(path, encoding="utf-8"))}


def swap_changes(work):
    """(claims, changed to another verdict, moved to Not Enough Info) over every fold, for the
    predictions with abstention (claims.pred, swapped.pred) and without (*.plain.pred)."""
    counts = {}
    for kind, suffix in (("with abstention", "pred"), ("without abstention", "plain.pred")):
        total = verdict = nei = 0
        for f in range(FOLDS):
            out = Path(work) / f"fold{f}"
            own, swapped = predictions(out / f"claims.{suffix}"), predictions(out / f"swapped.{suffix}")
            if own.keys() != swapped.keys():
                sys.exit(f"{out}: claims.{suffix} and swapped.{suffix} predict different claims")
            for claim, label in own.items():
                total += 1
                if swapped[claim] != label:
                    if swapped[claim] == "Not Enough Info":
                        nei += 1
                    else:
                        verdict += 1
        counts[kind] = (total, verdict, nei)
    return counts


def score(work):
    stance_gold, stance_pred, claim_gold, claim_pred = [], [], [], []
    for f in range(FOLDS):
        out = Path(work) / f"fold{f}"
        pairs = [json.loads(line) for line in open(out / "pairs.jsonl", encoding="utf-8")]
        said = predictions(out / "pairs.pred")
        missing = [p["id"] for p in pairs if p["id"] not in said]
        if missing:
            sys.exit(f"{out}/pairs.pred: no prediction for {len(missing)} pairs, e.g. {missing[:3]}")
        stance_gold += [p["stance"] for p in pairs]
        stance_pred += [STANCE_OF_VERDICT[said[p["id"]]] for p in pairs]
        claims = [json.loads(line) for line in open(out / "claims.jsonl", encoding="utf-8")]
        own = predictions(out / "claims.pred")
        for c in claims:
            if c["id"] not in own:
                sys.exit(f"{out}/claims.pred: claim {c['id']} has no prediction")
            claim_gold.append(c["label"])
            claim_pred.append(own[c["id"]])
    stances = ["SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO"]
    print(f"stance, {len(stance_gold)} claim-sentence pairs of {len(claim_gold)} claims (5-fold CV grouped by claim):")
    print(f"  gold: " + ", ".join(f"{s} {stance_gold.count(s)}" for s in stances) + "; predicted: " + ", ".join(f"{s} {stance_pred.count(s)}" for s in stances))
    print(f"  accuracy {accuracy_score(stance_gold, stance_pred):.4f}  macro-F1 {f1_score(stance_gold, stance_pred, labels=stances, average='macro', zero_division=0):.4f}")
    print(f"  per stance F1: " + ", ".join(f"{s} {v:.4f}" for s, v in zip(stances, f1_score(stance_gold, stance_pred, labels=stances, average=None, zero_division=0))))
    three = ["True", "False", "Conflicting"]
    judged = [(g, p) for g, p in zip(claim_gold, claim_pred) if g in three]
    g3, p3 = [g for g, _ in judged], [p for _, p in judged]
    print(f"claim verdicts, {len(judged)} claims labelled True/False/Conflicting (Not Enough Info answers count as misses):")
    print(f"  accuracy {accuracy_score(g3, p3):.4f}  macro-F1 {f1_score(g3, p3, labels=three, average='macro', zero_division=0):.4f}  per class F1: "
          + ", ".join(f"{s} {v:.4f}" for s, v in zip(three, f1_score(g3, p3, labels=three, average=None, zero_division=0))))
    four = three + ["Not Enough Info"]
    print(f"claim verdicts, all {len(claim_gold)} claims, Not Enough Info a fourth class:")
    print(f"  accuracy {accuracy_score(claim_gold, claim_pred):.4f}  macro-F1 {f1_score(claim_gold, claim_pred, labels=four, average='macro', zero_division=0):.4f}")
    print("evidence matters: claims whose verdict changes when their sentences are swapped for another claim's:")
    for kind, (total, verdict, nei) in swap_changes(work).items():
        print(f"  {kind}: {verdict + nei} of {total} ({(verdict + nei) / total:.1%}): {verdict} to another verdict, {nei} to Not Enough Info")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "folds":
        folds(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "score":
        score(sys.argv[2])
    else:
        sys.exit(__doc__)
