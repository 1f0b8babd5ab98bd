#pragma once
// The head chooser every view with one shares: "Head 1", "Head 2 (switched off)", ... for the
// heads of the current result, showing the shared selection's head and setting it when the user
// picks one.

#include <QComboBox>

namespace qkv {
struct Result;
}

namespace qkv::ui {

class HeadSelection;

class HeadBox : public QComboBox {
    Q_OBJECT
public:
    explicit HeadBox(HeadSelection* selection, QWidget* parent = nullptr);

    // Lists the heads of `result` (none for null), marking the switched-off ones, and shows the
    // selected head.
    void showHeadsOf(const qkv::Result* result);
    // Shows the selected head (without telling the selection again).
    void showSelectedHead();

private:
    HeadSelection* selection_;
};

}  // namespace qkv::ui
