"""Recall's coverage decision: a multinomial logistic regression over ops/coverage.features, fitted by
scripts/fit_coverage.py on all 589 questions of recall.yaml, recall_coverage.yaml, recall_coverage2.yaml, recall_coverage3.yaml, recall_coverage4.yaml, recall_coverage5.yaml, recall_coverage6.yaml, recall_coverage7.yaml
against a fresh demo store (L2 0.3, chosen across those files; each label of each file weighted alike).
Generated: refit with `python scripts/fit_coverage.py STORE --write`, never edited by hand.

Measured leave-one-file-out (trained on the others, asked the one left out) before it was adopted: see
docs/recall.md. Accuracy on the questions it was fitted on (in-sample, says nothing about new ones):
recall.yaml 0.870; recall_coverage.yaml 0.867; recall_coverage2.yaml 0.667; recall_coverage3.yaml 0.817; recall_coverage4.yaml 0.683; recall_coverage5.yaml 0.650; recall_coverage6.yaml 0.650; recall_coverage7.yaml 0.650.
"""

LABELS = ('covered', 'partial', 'uncovered')
BIAS = (0.1276, 0.0095, -0.1371)
# feature: (mean, standard deviation over the fitted questions, then the weight of the
#           standardised feature for covered, partial, uncovered);
# a label's score: BIAS + the sum of weight * (x - mean) / sd
TABLE = {
    "cos1": (0.6295, 0.1419, 0.1685, 0.1578, -0.3263),  # cosine of the first live hit
    "gap12": (0.1139, 0.1198, 0.0110, 0.1386, -0.1497),  # first cosine minus the second
    "terms1": (0.4218, 0.2513, 0.1638, 0.0562, -0.2200),  # share of topic words the first hit holds
    "conf1": (0.7187, 0.0624, -0.0277, -0.0282, 0.0559),  # first hit's effective confidence
    "parts": (0.1613, 0.3769, -0.1917, 0.3818, -0.1901),  # parts asked beyond one
    "details_open": (0.0289, 0.1674, -0.0859, 0.0565, 0.0294),  # details asked (how long, which table...), none stated
    "phrases_open": (0.0102, 0.1004, -0.0634, 0.0499, 0.0135),  # 'which FX rate table': narrowing unnamed
    "qualifiers_open": (0.0441, 0.2135, -0.1047, 0.0865, 0.0182),  # qualifiers asked, not stated
    "codes_open": (0.1171, 0.3470, -0.0837, 0.0267, 0.0570),  # codes no hit names
    "customer_open": (0.0153, 0.1227, -0.0763, 0.0075, 0.0689),  # customer named, no hit on it
    "subject_open": (0.0238, 0.1523, -0.0733, -0.0032, 0.0766),  # the question's subject, no hit names it
    "count_open": (0.0119, 0.1084, 0.0020, 0.0304, -0.0325),  # 'how many X', no count of X
    "stale_best": (0.2408, 0.2713, -0.0202, 0.0191, 0.0010),  # cosine of the closest item no longer live
    "awaiting": (1.7623, 1.3344, -0.0219, 0.0225, -0.0006),  # items in review this close (up to 3)
    "historical": (0.0611, 0.2396, -0.0915, 0.0818, 0.0096),  # asks about the past
}
