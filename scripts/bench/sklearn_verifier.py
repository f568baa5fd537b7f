#!/usr/bin/env python3
"""The peer of `quantir train-verifier`: the same features and model in scikit-learn.

TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True, min_df=2) on the claim,
a second one on the top-3 evidence joined (scaled by 0.5), LogisticRegression(C=1,
class_weight="balanced", lbfgs), 10-fold KFold(shuffle=True, random_state=SEED); vectorisers are
fitted inside each fold. The folds differ from quantir's (its own seeded shuffle), so macro-F1 is
comparable only up to fold noise. Prints "macro_f1 <x> seconds <t>" (reading to scores).

usage: sklearn_verifier.py MAPPING.json SEED [--claim-only]
"""
import ast, json, sys, time, warnings

warnings.filterwarnings("ignore")
started = time.perf_counter()
from scipy.sparse import hstack
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import KFold
import numpy as np

path, seed, claim_only = sys.argv[1], int(sys.argv[2]), "--claim-only" in sys.argv
items = json.load(open(path))
labels = {"true": 0, "false": 1, "half true/false": 2, "conflicting": 2}
y = np.array([labels[x["label"].lower()] for x in items])
claims = [x["claim"] for x in items]
evidence = []
for x in items:
    e = x["evidences"]
    e = ast.literal_eval(e) if isinstance(e, str) else e
    evidence.append("\n".join([d for q in e for d in q.get("top_k_doc", [])][:3]))
vectoriser = lambda: TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True, min_df=2)
pred = np.zeros(len(y), int)
for train, test in KFold(10, shuffle=True, random_state=seed).split(y):
    blocks_train, blocks_test = [], []
    for texts, weight in [(claims, 1.0)] + ([] if claim_only else [(evidence, 0.5)]):
        v = vectoriser()
        blocks_train.append(v.fit_transform([texts[i] for i in train]) * weight)
        blocks_test.append(v.transform([texts[i] for i in test]) * weight)
    model = LogisticRegression(C=1.0, class_weight="balanced", max_iter=3000)
    model.fit(hstack(blocks_train).tocsr(), y[train])
    pred[test] = model.predict(hstack(blocks_test).tocsr())
print(f"macro_f1 {f1_score(y, pred, average='macro'):.4f} seconds {time.perf_counter() - started:.1f}")
