#pragma once
// The tokens of a sentence as small rounded chips that wrap, with the count: users see at once
// how the text is split (words and punctuation as separate tokens). Every token has its chip,
// also for a pasted article of 32,768 tokens: the chips are painted, never widgets; their widths
// are measured once per text and only the rows in view are painted. Past kMaxRows rows the strip
// scrolls (wheel or its scroll bar).
//
// A click on a chip selects that token, shift-click or a drag several together (chipsChosen);
// the chips of the selected tokens are drawn highlighted (setHighlighted). From the keyboard
// (a Tab stop): Left and Right choose the previous or next token, Shift with them extends from
// the last one chosen, Home and End choose the first or last.

#include <QStringList>
#include <QWidget>

#include <vector>

class QScrollBar;

namespace qkv::ui {

class TokenChips : public QWidget {
    Q_OBJECT
public:
    explicit TokenChips(QWidget* parent = nullptr);

    // `outside[i]`: token i is outside the lexicon (a dashed, italic chip); empty: none is.
    void setTokens(const QStringList& tokens, const std::vector<bool>& outside = {});
    const QStringList& tokens() const { return tokens_; }
    bool isMarked(int token) const
    {
        return token >= 0 && token < static_cast<int>(outside_.size()) && outside_[token];
    }
    // Tokens [first, end) drawn highlighted (the selection); first >= end: none.
    void setHighlighted(int first, int end);
    // At most this many rows of chips are shown at once; past them the strip scrolls.
    static constexpr int kMaxRows = 6;
    // Where token `token`'s chip is now (empty when scrolled out of view), and scrolls it into
    // view first when asked.
    QRect chipRect(int token) const;
    void scrollToToken(int token);
    int firstVisibleRow() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

signals:
    // The user chose tokens [first, end): a click (one token), shift-click (from the last one
    // chosen) or a drag over chips.
    void chipsChosen(int first, int end);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    struct Row {
        int first = 0;  // index into items (0: the count, i + 1: token i)
    };
    // Rows of items for `width`: each item's x and width, the row it starts.
    void layoutRows(int width, std::vector<int>* x, std::vector<Row>* rows) const;
    int rowHeight() const;
    int textWidth() const;  // the width chips wrap in (the scroll bar's taken off when shown)
    void relayout();
    int tokenAt(const QPoint& point) const;  // -1: no chip there
    QString itemText(int item) const;

    QStringList tokens_;
    std::vector<bool> outside_;
    std::vector<int> widths_;  // per item: the count, then every token's chip, measured once
    std::vector<int> x_;       // per item, in the current layout
    std::vector<Row> rows_;
    QScrollBar* scroll_;
    int highlightFirst_ = 0, highlightEnd_ = 0;
    int cursor_ = -1;  // the token the keyboard moves from (the last one chosen), -1: none yet
    int anchor_ = -1;  // the token a press started on (or the last one chosen) for shift and drags
    bool dragging_ = false;
};

}  // namespace qkv::ui
