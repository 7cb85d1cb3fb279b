"""A sparse vector whose outputs mix symbols and numbers (ragged lists): '⊥' for each query below a noisy
threshold, then the noisy value of the first query above it.  The released value's noise (scale 1) is far too
small for ε = 0.5 (it would need scale 4); a learned event finds it.

    privcheck audit examples/mysvt.py:svt --epsilon 0.5 --pair '[1,1,1,1,1]' '[2,0,2,0,2]' --samples 20000
    privcheck audit examples/mysvt.py:svt --epsilon 0.5 --input '[1,1,1,1,1]' --neighbours replace-linf --sensitivity 1 --samples 20000
"""

import numpy as np


def svt(x, rng, size):
    q = np.asarray(x, dtype=float)
    rho = rng.laplace(0, 4.0, size)
    nu = rng.laplace(0, 8.0, (size, q.size))
    z = rng.laplace(0, 1.0, (size, q.size))
    out = []
    for i in range(size):
        row = []
        for j in range(q.size):
            if q[j] + nu[i, j] >= 1.0 + rho[i]:
                row.append(float(q[j] + z[i, j]))
                break
            row.append("⊥")
        out.append(row)
    return out
