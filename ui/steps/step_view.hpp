#pragma once
// "Step by step" tab: equation (1) and MultiHead end to end for the selected head, query i and
// key j (step_figures.hpp), like BertViz's neuron view but through V, the head output, Concat
// and W^O. The head, query and key are picked here too: the three lists, clicking a token, a
// softmax bar, a value row or a Concat block, and the arrow keys (↑↓ query, ←→ key; [ and ]
// change head app-wide). Every number shown is the core's (StepNumbers).

#include <QStringList>

#include "ui/steps/step_figures.hpp"
#include "ui/steps/step_numbers.hpp"
#include "ui/views/result_view.hpp"

class QComboBox;
class QLabel;
class QScrollArea;

namespace qkv::ui {

class FigureCanvas;
class HeadSelection;

class StepView : public ResultView {
    Q_OBJECT
public:
    explicit StepView(HeadSelection* selection, QWidget* parent = nullptr);

    // The tab a session names and its figures' view (ResultView::id()).
    static constexpr QLatin1String kId = kStepViewId;
    QString title() const override;
    QString summary() const override;
    QString id() const override { return kId; }
    QString longLayerText(const qkv::Result& result) const override { return stepsLongLayerNote(result); }

    const StepNumbers& numbers() const { return numbers_; }
    // The words as painted (for tests: the same text the user reads).
    StepTexts texts() const { return stepTexts(numbers_); }
    QString dotText() const { return texts().formulas[2]; }
    QString scaleText() const { return texts().formulas[3]; }
    QString maskText() const { return texts().formulas[4]; }
    QString softmaxText() const { return texts().formulas[5]; }
    QString outputText() const { return texts().formulas[7]; }

    FigureCanvas* canvas() const { return canvas_; }
    QScrollArea* scrollArea() const { return scroll_; }
    QComboBox* headBox() const { return headBox_; }
    QComboBox* queryBox() const { return queryBox_; }
    QComboBox* keyBox() const { return keyBox_; }
    // The geometry painted now (widget coordinates of the canvas).
    StepGeometry geometry() const;
    // Empty when the whole figure is visible; else which steps lie below the visible part.
    QString belowText() const;

    QSize sizeHint() const override;

    // How numbers are written everywhere in this view.
    static QString number(double value);

protected:
    void refresh(Changes changes) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void fillLists();
    void syncLists();
    void clickAt(const QPointF& position);
    QString toolTipAt(const QPointF& position) const;
    void updateBelow();
    void updateMinimumSize();

    StepNumbers numbers_;
    QComboBox* headBox_;
    QComboBox* queryBox_;
    QComboBox* keyBox_;
    QScrollArea* scroll_;
    FigureCanvas* canvas_;
    QLabel* below_;
};

}  // namespace qkv::ui
