"""Recall's coverage decision: a multinomial logistic regression over ops/coverage.features, fitted by
scripts/fit_coverage.py on all 469 questions of recall.yaml, recall_coverage.yaml, recall_coverage2.yaml, recall_coverage3.yaml, recall_coverage4.yaml, recall_coverage5.yaml
against a fresh demo store (L2 0.3, chosen across those files; each label weighted alike).
Generated: refit with `python scripts/fit_coverage.py STORE --write`, never edited by hand.

Measured leave-one-file-out (trained on the others, asked the one left out) before it was adopted: see
docs/recall.md. Accuracy on the questions it was fitted on (in-sample, says nothing about new ones):
recall.yaml 0.834; recall_coverage.yaml 0.900; recall_coverage2.yaml 0.667; recall_coverage3.yaml 0.817; recall_coverage4.yaml 0.667; recall_coverage5.yaml 0.650.
"""

LABELS = ('covered', 'partial', 'uncovered')
BIAS = (0.1158, 0.0138, -0.1296)
# feature: (mean, standard deviation over the fitted questions, then the weight of the
#           standardised feature for covered, partial, uncovered);
# a label's score: BIAS + the sum of weight * (x - mean) / sd
TABLE = {
    "cos1": (0.6348, 0.1460, 0.1869, 0.1516, -0.3385),  # cosine of the first live hit
    "gap12": (0.1224, 0.1231, 0.0801, 0.1018, -0.1819),  # first cosine minus the second
    "terms1": (0.4539, 0.2585, 0.2721, -0.0164, -0.2558),  # share of topic words the first hit holds
    "conf1": (0.7190, 0.0626, -0.0309, -0.0358, 0.0667),  # first hit's effective confidence
    "parts": (0.1365, 0.3433, -0.1786, 0.3555, -0.1769),  # parts asked beyond one
    "details_open": (0.0256, 0.1579, -0.1292, 0.0986, 0.0306),  # details asked (how long, which table...), none stated
    "phrases_open": (0.0107, 0.1027, -0.0648, 0.0731, -0.0084),  # 'which FX rate table': narrowing unnamed
    "qualifiers_open": (0.0426, 0.2123, -0.1245, 0.0970, 0.0275),  # qualifiers asked, not stated
    "codes_open": (0.1087, 0.3247, -0.1122, 0.0107, 0.1015),  # codes no hit names
    "customer_open": (0.0192, 0.1372, -0.0890, -0.0101, 0.0991),  # customer named, no hit on it
    "subject_open": (0.0277, 0.1642, -0.0837, -0.0193, 0.1030),  # the question's subject, no hit names it
    "count_open": (0.0085, 0.0920, -0.0366, 0.0708, -0.0342),  # 'how many X', no count of X
    "stale_best": (0.2372, 0.2728, -0.0390, 0.0581, -0.0191),  # cosine of the closest item no longer live
    "awaiting": (1.6908, 1.3464, -0.0557, 0.0566, -0.0009),  # items in review this close (up to 3)
    "historical": (0.0618, 0.2409, -0.1168, 0.1014, 0.0154),  # asks about the past
}
