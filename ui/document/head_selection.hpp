#pragma once
// The selected head and the selected (query, key) cell: shared by the heads grid (which sets
// them), the step-by-step view and the factored / Costs views (which follow them).

#include <QObject>

namespace qkv::ui {

class HeadSelection : public QObject {
    Q_OBJECT
public:
    explicit HeadSelection(QObject* parent = nullptr);

    int head() const { return head_; }
    int queryRow() const { return queryRow_; }
    int keyColumn() const { return keyColumn_; }
    // Several queries selected together (a span, BertViz #125): positions [queryRow(),
    // querySpanEnd()); querySpanEnd() is queryRow() + 1 while one query is selected.
    int querySpanEnd() const { return querySpanEnd_; }
    bool hasQuerySpan() const { return querySpanEnd_ - queryRow_ > 1; }

    void setHead(int head);
    // One query (the span becomes that query alone) and one key.
    void setCell(int queryRow, int keyColumn);
    // Another key for the selected query or span (the span kept).
    void setKey(int keyColumn);
    // Queries [first, end) together (end <= first: first alone), the key kept.
    void setQuerySpan(int first, int end);
    // Keeps the selection inside a result of this shape.
    void clampTo(int headCount, int queryCount, int keyCount);

signals:
    void headChanged(int head);
    void cellChanged(int queryRow, int keyColumn);
    // A span was selected, changed or given up for one query (not a single query moving: that
    // is cellChanged alone).
    void querySpanChanged(int first, int end);

private:
    int head_ = 0, queryRow_ = 0, keyColumn_ = 0, querySpanEnd_ = 1;
};

}  // namespace qkv::ui
