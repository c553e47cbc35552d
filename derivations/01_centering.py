"""Centering, mean and variance

Layer normalization starts from two statistics taken across the d coordinates of one input:
the mean μ(z) = ⟨1, z⟩/d and the variance q(z) = ‖Pz‖²/d, where P = I − 11ᵀ/d subtracts
the mean from every coordinate. P is the orthogonal projection onto the vectors with mean
zero; a common offset c·1 lies in its kernel, which is why shifting an input by c·1 moves its
mean by c and leaves its variance alone.
"""

from lnsym import Eq, Le, center, d, dot, mean, ones, scalar, var, vector
from lnsym.checking.claims import Claim
from lnsym.checking.proof import Derivation, Step

z, a, b = vector("z"), vector("a"), vector("b")
c = scalar("c")

CLAIMS = [
    Claim(
        "centering.kills_ones",
        Eq(center(ones), 0),
        title="The common-offset direction is in the kernel of P: P1 = 0",
        source="article, centering-matrix paragraph (P1 = 0)",
    ),
    Claim(
        "centering.idempotent",
        Eq(center(center(a)), center(a)),
        title="Centering twice changes nothing: P² = P",
        source="implied by the article's centering-matrix paragraph (P is a projection)",
    ),
    Claim(
        "centering.symmetric",
        Eq(dot(center(a), b), dot(a, center(b))),
        title="P is symmetric: ⟨Pa, b⟩ = ⟨a, Pb⟩",
        source="implied by the article's centering-matrix paragraph (P = I − 11ᵀ/d)",
    ),
    Claim(
        "centering.subtracts_mean",
        Eq(center(z), z - mean(z) * ones),
        title="Pz = z − μ(z)1",
        source="article, centering-matrix paragraph (Pz = z − μ(z)1)",
    ),
    Claim(
        "mean.shift",
        Eq(mean(z + c * ones), mean(z) + c),
        title="A common shift moves the mean by the same amount",
        source="article, shift-invariance paragraph (the display after 'we have' is missing)",
    ),
    Claim(
        "variance.shift_invariant",
        Eq(var(z + c * ones), var(z)),
        title="A common shift leaves the variance unchanged",
        source="article, shift-invariance paragraph (q(z + c1) = q(z))",
    ),
    Claim(
        "variance.nonnegative",
        Le(0, var(z), certificate=[dot(center(z), center(z)) / d]),
        title="The variance is nonnegative",
        source="article, definition of the coordinate variance (a mean of squares)",
    ),
]

DERIVATIONS = [
    Derivation(
        "derivation.mean_shift",
        "The mean follows a common shift",
        mean(z + c * ones),
        [
            Step(dot(ones, z + c * ones) / d, "definition of the mean"),
            Step((dot(ones, z) + c * dot(ones, ones)) / d, "the inner product is linear"),
            Step(mean(z) + c, "⟨1, 1⟩ = d and ⟨1, z⟩/d = μ(z)"),
        ],
        source="article, shift-invariance paragraph",
    ),
    Derivation(
        "derivation.variance_shift",
        "The variance ignores a common shift",
        var(z + c * ones),
        [
            Step(dot(center(z + c * ones), center(z + c * ones)) / d, "q(v) = ‖Pv‖²/d"),
            Step(
                dot(center(z) + c * center(ones), center(z) + c * center(ones)) / d, "P is linear"
            ),
            Step(dot(center(z), center(z)) / d, "P1 = 0"),
            Step(var(z), "q(z) = ‖Pz‖²/d"),
        ],
        source="article, shift-invariance paragraph",
    ),
]
