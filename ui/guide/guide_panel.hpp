#pragma once
// The student guide's panel: a small card inside the main window with the step's question,
// its answer, the equation, where to look and what was set up, Back / Next, the glossary and
// Close. It only shows what it is given; StudentGuide decides what and where.

#include <QFrame>

class QLabel;
class QPushButton;
class QStackedWidget;
class QTextBrowser;
class QToolButton;

namespace qkv::ui {

struct GuideStep;

class GuidePanel : public QFrame {
    Q_OBJECT
public:
    explicit GuidePanel(QWidget* parent = nullptr);

    // Step `index` (0-based) of `count`; `setup`: what the step set up, rich text (escaped).
    void showStep(const GuideStep& step, int index, int count, const QString& setup);
    // The glossary instead of the step (Back and Next then return to the step).
    void showGlossary(bool show);
    bool isGlossaryShown() const;

    QPushButton* backButton() const { return back_; }
    QPushButton* nextButton() const { return next_; }
    QPushButton* glossaryButton() const { return glossary_; }
    QToolButton* closeButton() const { return close_; }
    QLabel* counterLabel() const { return counter_; }
    QLabel* titleLabel() const { return title_; }
    QLabel* textLabel() const { return text_; }
    QLabel* equationLabel() const { return equation_; }
    QLabel* whereLabel() const { return where_; }
    QTextBrowser* glossaryBrowser() const { return glossaryBrowser_; }

    // Its height at its fixed width, for what it shows now.
    int preferredHeight() const;
    static constexpr int kWidth = 330;

signals:
    void backRequested();
    void nextRequested();
    void closeRequested();
    void glossaryToggled(bool shown);

private:
    QWidget* makeStepPage();
    QWidget* makeGlossaryPage();
    QLayout* makeButtons();

    QLabel* counter_;
    QString stepCounter_;
    QToolButton* close_;
    QStackedWidget* pages_;
    QLabel* title_ = nullptr;
    QLabel* text_ = nullptr;
    QLabel* equation_ = nullptr;
    QLabel* where_ = nullptr;
    QTextBrowser* glossaryBrowser_ = nullptr;
    QPushButton* back_ = nullptr;
    QPushButton* next_ = nullptr;
    QPushButton* glossary_ = nullptr;
};

}  // namespace qkv::ui
