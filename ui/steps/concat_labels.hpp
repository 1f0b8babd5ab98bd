#pragma once
// The head labels under ⑨ Concat's blocks, one form for every block: "Head 3" when each fits
// its block, else the head number alone ("3"), else the numbers of one block in k (and the
// chosen head always). Each label is centred on its block, lies inside the label row and never
// touches another.

#include <QFontMetricsF>
#include <QRectF>
#include <QString>

#include <vector>

namespace qkv::ui {

struct BlockLabel {
    int head = 0;  // 0-based
    QString text;
    QRectF rect;  // where the text is drawn (as wide as the text)
};

std::vector<BlockLabel> concatBlockLabels(const std::vector<QRectF>& blocks, const QRectF& row, int chosen,
                                          const QFontMetricsF& metrics);

}  // namespace qkv::ui
