#pragma once
// A message that does not fit the status bar (the notes of a loaded checkpoint layer, a long
// error with its path), shown whole above the views, word-wrapped, until it is dismissed or
// the next message comes. The status bar keeps its one-line start.

#include <QFrame>

class QLabel;
class QToolButton;

namespace qkv::ui {

class NoticeBar : public QFrame {
    Q_OBJECT
public:
    explicit NoticeBar(QWidget* parent = nullptr);

    // Shows `message`; an empty one hides the bar.
    void setMessage(const QString& message);
    QString message() const;
    QToolButton* dismissButton() const { return dismiss_; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void updateColors();

    QLabel* text_;
    QToolButton* dismiss_;
};

}  // namespace qkv::ui
