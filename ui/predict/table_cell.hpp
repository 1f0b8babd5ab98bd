#pragma once
// A read-only cell of the Predict tab's tables (the head ranking, the generated tokens).

#include <QString>
#include <QTableWidgetItem>

namespace qkv::ui {

inline QTableWidgetItem* readOnlyCell(const QString& text, Qt::Alignment alignment = Qt::AlignLeft | Qt::AlignVCenter)
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    item->setTextAlignment(alignment);
    return item;
}

}  // namespace qkv::ui
