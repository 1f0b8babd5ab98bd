#pragma once
// A message that does not fit the status bar (the notes of a loaded checkpoint layer, a long
// error with its path), shown whole above the views, word-wrapped, until it is dismissed or
// the next message comes: up to kMaxLines lines, then it scrolls (a taller strip would push the
// views below their minimum and the window would grow by itself). The status bar keeps its
// one-line start.

#include <QFrame>

class QLabel;
class QScrollArea;
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
    QLabel* textLabel() const { return text_; }

    static constexpr int kMaxLines = 3;

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void updateColors();
    void fitHeight();

    QScrollArea* scroll_;
    QLabel* text_;
    QToolButton* dismiss_;
};

}  // namespace qkv::ui
