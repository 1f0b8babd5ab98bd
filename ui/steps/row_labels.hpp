#pragma once
// Which rows of ⑦'s V_i get their key's label, and in what font. Every row is labelled while the
// rows are a readable line apart; when they are closer, the labels shrink, down to
// kSmallestRowLabelScale of the figure's font; closer still, one row in k is labelled (and the
// chosen key always), and the figure says so ("key labels: 1 in 3"), never silently.

#include <QFont>
#include <QFontMetricsF>
#include <QString>

#include <vector>

class QPaintDevice;

namespace qkv::ui {

// The smallest row label, as a share of the figure's font (9 pt gives 7.2 pt: still readable).
inline constexpr double kSmallestRowLabelScale = 0.8;

struct RowLabels {
    QFont font;
    int every = 1;          // rows 0, k, 2k, ... are labelled (and the chosen one)
    std::vector<int> rows;  // the labelled rows, ascending
    QString rule;           // "key labels: 1 in 3" when every > 1, else empty
};

// The labels of `rows` rows spread over `height`, starting from the figure's font `base`.
RowLabels planRowLabels(const QFont& base, const QPaintDevice* device, double height, int rows, int chosen);

// The height that labels every one of `rows` rows at the smallest label size (the layout gives
// ⑦ at least this, up to kRowsLabelledInFull rows; beyond, one row in k is labelled).
double rowLabelsHeight(const QFontMetricsF& metrics, int rows);
inline constexpr int kRowsLabelledInFull = 24;

}  // namespace qkv::ui
