#pragma once
// A validation message shown right under the control it is about; hidden when empty.

#include <QLabel>

namespace qkv::ui {

class FieldMessage : public QLabel {
    Q_OBJECT
public:
    explicit FieldMessage(QWidget* parent = nullptr);
    void setMessage(const QString& message);

protected:
    void changeEvent(QEvent* event) override;

private:
    void updateColors();
};

}  // namespace qkv::ui
