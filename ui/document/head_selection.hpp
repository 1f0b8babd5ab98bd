#pragma once
// The selected head and the selected (query, key) cell: shared by the heads grid (which sets
// them), the step-by-step view and the factored / comparison views (which follow them).

#include <QObject>

namespace qkv::ui {

class HeadSelection : public QObject {
    Q_OBJECT
public:
    explicit HeadSelection(QObject* parent = nullptr);

    int head() const { return head_; }
    int queryRow() const { return queryRow_; }
    int keyColumn() const { return keyColumn_; }

    void setHead(int head);
    void setCell(int queryRow, int keyColumn);
    // Keeps the selection inside a result of this shape.
    void clampTo(int headCount, int queryCount, int keyCount);

signals:
    void headChanged(int head);
    void cellChanged(int queryRow, int keyColumn);

private:
    int head_ = 0, queryRow_ = 0, keyColumn_ = 0;
};

}  // namespace qkv::ui
