#pragma once
// "Step by step" tab: for the selected head and (query, key) cell, the path from q_i and k_j
// to the weight a_ij and the head output, like BertViz's neuron view but for any
// configuration. Every number shown is the core's (see StepNumbers).

#include <memory>

#include "core/pipeline/compute.hpp"
#include "ui/steps/step_numbers.hpp"
#include "ui/views/result_view.hpp"

class QLabel;

namespace qkv::ui {

class HeadSelection;
class VectorBars;

class StepView : public ResultView {
    Q_OBJECT
public:
    explicit StepView(HeadSelection* selection, QWidget* parent = nullptr);

    QString title() const override;
    QStringList figureNames() const override;
    const StepNumbers& numbers() const { return numbers_; }
    // The formula lines as shown (for tests: the same text the user reads).
    QString dotText() const;
    QString scaleText() const;
    QString maskText() const;
    QString softmaxText() const;
    QString outputText() const;

    QSize sizeHint() const override;

    // How numbers are written everywhere in this view.
    static QString number(double value);

protected:
    void refresh(Changes changes) override;

private:
    void showNumbers();
    QLabel* addStep(const QString& title, QWidget* content = nullptr);

    StepNumbers numbers_;
    QWidget* page_;
    QLabel* header_;
    VectorBars* queryBars_;
    VectorBars* keyBars_;
    VectorBars* productBars_;
    QLabel* dot_;
    QLabel* scale_;
    QLabel* mask_;
    VectorBars* softmaxBars_;
    QLabel* softmax_;
    VectorBars* contributionBars_;
    VectorBars* outputBars_;
    QLabel* output_;
};

}  // namespace qkv::ui
