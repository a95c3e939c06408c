"""Recall's coverage decision: a multinomial logistic regression over ops/coverage.features, fitted by
scripts/fit_coverage.py on all 349 questions of recall.yaml, recall_coverage.yaml, recall_coverage2.yaml, recall_coverage3.yaml
against a fresh demo store (L2 0.3, chosen across those files; each label weighted alike).
Generated: refit with `python scripts/fit_coverage.py STORE --write`, never edited by hand.

Measured leave-one-file-out (trained on the others, asked the one left out) before it was adopted: see
docs/recall.md. Accuracy on the questions it was fitted on (in-sample, says nothing about new ones):
recall.yaml 0.864; recall_coverage.yaml 0.933; recall_coverage2.yaml 0.683; recall_coverage3.yaml 0.833.
"""

LABELS = ('covered', 'partial', 'uncovered')
BIAS = (0.1771, -0.0024, -0.1747)
# feature: (mean, standard deviation over the fitted questions, then the weight of the
#           standardised feature for covered, partial, uncovered);
# a label's score: BIAS + the sum of weight * (x - mean) / sd
TABLE = {
    "cos1": (0.6418, 0.1516, 0.2036, 0.1370, -0.3406),  # cosine of the first live hit
    "gap12": (0.1359, 0.1279, 0.0797, 0.1394, -0.2191),  # first cosine minus the second
    "terms1": (0.4812, 0.2693, 0.2803, -0.0219, -0.2584),  # share of topic words the first hit holds
    "conf1": (0.7216, 0.0663, -0.0446, -0.0313, 0.0759),  # first hit's effective confidence
    "parts": (0.1060, 0.3079, -0.1717, 0.3306, -0.1589),  # parts asked beyond one
    "details_open": (0.0229, 0.1497, -0.1229, 0.1525, -0.0297),  # details asked (how long, which table...), none stated
    "phrases_open": (0.0086, 0.0923, -0.0625, 0.1070, -0.0445),  # 'which FX rate table': narrowing unnamed
    "qualifiers_open": (0.0487, 0.2282, -0.1486, 0.1519, -0.0033),  # qualifiers asked, not stated
    "codes_open": (0.0917, 0.2984, -0.1400, 0.0031, 0.1370),  # codes no hit names
    "customer_open": (0.0258, 0.1585, -0.1092, -0.0160, 0.1253),  # customer named, no hit on it
    "subject_open": (0.0372, 0.1894, -0.1046, -0.0142, 0.1188),  # the question's subject, no hit names it
    "count_open": (0.0115, 0.1064, -0.0520, 0.0935, -0.0415),  # 'how many X', no count of X
    "stale_best": (0.2467, 0.2760, -0.0752, 0.0920, -0.0168),  # cosine of the closest item no longer live
    "awaiting": (1.5645, 1.3603, -0.0638, 0.0287, 0.0350),  # items in review this close (up to 3)
    "historical": (0.0745, 0.2626, -0.1342, 0.1139, 0.0203),  # asks about the past
}
