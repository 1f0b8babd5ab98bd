#include "ui/document/head_selection.hpp"

#include <algorithm>

namespace qkv::ui {

HeadSelection::HeadSelection(QObject* parent) : QObject(parent) {}

void HeadSelection::setHead(int head)
{
    head = std::max(head, 0);
    if (head == head_) return;
    head_ = head;
    emit headChanged(head_);
}

void HeadSelection::setCell(int queryRow, int keyColumn)
{
    queryRow = std::max(queryRow, 0);
    keyColumn = std::max(keyColumn, 0);
    if (queryRow == queryRow_ && keyColumn == keyColumn_) return;
    queryRow_ = queryRow;
    keyColumn_ = keyColumn;
    emit cellChanged(queryRow_, keyColumn_);
}

void HeadSelection::clampTo(int headCount, int queryCount, int keyCount)
{
    setHead(std::clamp(head_, 0, std::max(headCount - 1, 0)));
    setCell(std::clamp(queryRow_, 0, std::max(queryCount - 1, 0)),
            std::clamp(keyColumn_, 0, std::max(keyCount - 1, 0)));
}

}  // namespace qkv::ui
