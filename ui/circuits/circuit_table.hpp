#pragma once
// One circuit as a table a person reads: a row per prompt token, its top-K vocabulary tokens
// across, each cell the token and its value ("·b  4.21"), best first.

#include <QString>

#include <vector>

#include "core/circuits/head_circuits.hpp"

class QTableWidget;

namespace qkv::ui {

// `rowTitle` heads the first column ("query token"); `valueName` names the values in tooltips
// ("QK score").
void fillCircuitTable(QTableWidget& table, const std::vector<qkv::TokenCircuit>& circuits, const QString& rowTitle,
                      const QString& valueName);
// A new table with the look both circuit tables share (read-only, rows not numbered).
QTableWidget* makeCircuitTable(QWidget* parent);

}  // namespace qkv::ui
