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
    const bool spanChanged = hasQuerySpan();  // one query following the cell is not a span's change
    const bool cellMoved = queryRow != queryRow_ || keyColumn != keyColumn_;
    queryRow_ = queryRow;
    keyColumn_ = keyColumn;
    querySpanEnd_ = queryRow + 1;
    if (cellMoved) emit cellChanged(queryRow_, keyColumn_);
    if (spanChanged) emit querySpanChanged(queryRow_, querySpanEnd_);
}

void HeadSelection::setKey(int keyColumn)
{
    keyColumn = std::max(keyColumn, 0);
    if (keyColumn == keyColumn_) return;
    keyColumn_ = keyColumn;
    emit cellChanged(queryRow_, keyColumn_);
}

void HeadSelection::setQuerySpan(int first, int end)
{
    first = std::max(first, 0);
    end = std::max(end, first + 1);
    const bool cellMoved = first != queryRow_;
    if (!cellMoved && end == querySpanEnd_) return;
    const bool spanChanged = hasQuerySpan() || end - first > 1;
    queryRow_ = first;
    querySpanEnd_ = end;
    if (cellMoved) emit cellChanged(queryRow_, keyColumn_);
    if (spanChanged) emit querySpanChanged(queryRow_, querySpanEnd_);
}

void HeadSelection::clampTo(int headCount, int queryCount, int keyCount)
{
    setHead(std::clamp(head_, 0, std::max(headCount - 1, 0)));
    const int first = std::clamp(queryRow_, 0, std::max(queryCount - 1, 0));
    const int end = std::clamp(querySpanEnd_, first + 1, std::max(queryCount, first + 1));
    const int key = std::clamp(keyColumn_, 0, std::max(keyCount - 1, 0));
    if (key != keyColumn_) setCell(first, key);  // one query alone: the span is set again below
    setQuerySpan(first, end);
}

}  // namespace qkv::ui
