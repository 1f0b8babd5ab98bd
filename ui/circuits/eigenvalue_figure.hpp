#pragma once
// The eigenvalues of one head's OV circuit in the complex plane: M^h = W_O^h W_U W_E W_V^h
// (d_k x d_k), whose non-zero eigenvalues are those of the full V x V circuit W_E W_V W_O W_U
// (core/circuits/head_circuits.hpp). Re along x, Im along y, one unit the same length on both
// axes; the circle |λ| = max |λ| and the two zero lines drawn. Eigenvalues on the positive real
// axis: the head raises the logit of the token it reads (copying).

#include <QRectF>
#include <QString>

#include <complex>
#include <vector>

#include "ui/figures/figure.hpp"

class QPainter;

namespace qkv::ui {

struct EigenvaluePlot {
    std::vector<std::complex<double>> eigenvalues;
    double copyingScore = 0.0;  // NaN when every eigenvalue is 0
    QString headName;           // "1.3"
};

// "copies what it attends to: +0.87", "suppresses what it attends to: −0.42", or that it has none.
QString copyingScoreWords(double copyingScore);

void paintEigenvaluePlane(QPainter& painter, const QRectF& rect, const EigenvaluePlot& plot,
                          const FigureOptions& options);

}  // namespace qkv::ui
