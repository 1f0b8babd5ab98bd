#include "ui/guide/glossary.hpp"

#include <QCoreApplication>

namespace qkv::ui {
namespace {
// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::Glossary)
};
}  // namespace

const std::vector<GlossaryEntry>& glossaryEntries()
{
    static const std::vector<GlossaryEntry> entries{
        {Text::tr("<i>X</i>"), Text::tr("a sentence, one row per token (n × d<sub>model</sub>): token embedding "
                                        "plus position")},
        {Text::tr("<i>n</i><sub>q</sub>, <i>n</i><sub>k</sub>"),
         Text::tr("the number of queries and of keys; equal in self-attention, the target's and the source's "
                  "length in cross-attention")},
        {Text::tr("<i>d</i><sub>model</sub>"), Text::tr("the width of every token vector (the paper: 512)")},
        {Text::tr("<i>h</i>"), Text::tr("the number of heads (the paper: 8)")},
        {Text::tr("<i>d</i><sub>k</sub>, <i>d</i><sub>v</sub>"),
         Text::tr("the width of one head's queries and keys, and of its values: d<sub>k</sub> = d<sub>v</sub> = "
                  "d<sub>model</sub>/h (the paper: 64)")},
        {Text::tr("<i>W</i><sup>Q</sup>, <i>W</i><sup>K</sup>, <i>W</i><sup>V</sup>"),
         Text::tr("the learned projections, d<sub>model</sub> × d<sub>model</sub> each, all heads side by side")},
        {Text::tr("<i>Q</i>, <i>K</i>, <i>V</i>"),
         Text::tr("queries X<sub>q</sub>W<sup>Q</sup>, keys X<sub>kv</sub>W<sup>K</sup> and values "
                  "X<sub>kv</sub>W<sup>V</sup>: what each token asks, offers to be matched against, and passes on")},
        {Text::tr("<i>W</i><sub>i</sub><sup>Q</sup>, <i>W</i><sub>i</sub><sup>K</sup>, "
                  "<i>W</i><sub>i</sub><sup>V</sup>"),
         Text::tr("head i's d<sub>k</sub> columns of W<sup>Q</sup>, W<sup>K</sup>, W<sup>V</sup>, from "
                  "(i−1)·d<sub>k</sub> (heads from 1, columns from 0): d<sub>model</sub> × d<sub>k</sub> each")},
        {Text::tr("<i>QK</i><sup>T</sup>"),
         Text::tr("every query's dot product with every key (n<sub>q</sub> × n<sub>k</sub>): the raw scores")},
        {Text::tr("/√<i>d</i><sub>k</sub>"),
         Text::tr("the scaling of the scaled dot product: keeps the scores' spread independent of d<sub>k</sub>, "
                  "so the softmax does not saturate")},
        {Text::tr("softmax"),
         Text::tr("turns each row of scores into weights that are positive and sum to 1: "
                  "a<sub>ij</sub> = e<sup>s<sub>ij</sub></sup> / Σ<sub>j′</sub> e<sup>s<sub>ij′</sub></sup>")},
        {Text::tr("Attention(<i>Q</i>, <i>K</i>, <i>V</i>)"),
         Text::tr("softmax(QK<sup>T</sup>/√d<sub>k</sub>)V, equation (1): each query's weighted average of the "
                  "values")},
        {Text::tr("head<sub>i</sub>"),
         Text::tr("Attention(QW<sub>i</sub><sup>Q</sup>, KW<sub>i</sub><sup>K</sup>, VW<sub>i</sub><sup>V</sup>) "
                  "(n<sub>q</sub> × d<sub>v</sub>)")},
        {Text::tr("Concat"), Text::tr("the heads' outputs side by side (n<sub>q</sub> × h·d<sub>v</sub>)")},
        {Text::tr("<i>W</i><sup>O</sup>"),
         Text::tr("the output projection (h·d<sub>v</sub> × d<sub>model</sub>): MultiHead = "
                  "Concat(head<sub>1</sub>, …, head<sub>h</sub>)W<sup>O</sup>")},
        {Text::tr("<i>W</i><sub>i</sub>"),
         Text::tr("W<sub>i</sub><sup>Q</sup>(W<sub>i</sub><sup>K</sup>)<sup>T</sup>, d<sub>model</sub> × "
                  "d<sub>model</sub>: what head i's scores compare, Q<sub>i</sub>K<sub>i</sub><sup>T</sup> = "
                  "X<sub>q</sub>W<sub>i</sub>X<sub>kv</sub><sup>T</sup>")},
        {Text::tr("rank"),
         Text::tr("the number of independent directions of a matrix; W<sub>i</sub> has rank ≤ d<sub>k</sub>, "
                  "so two thin factors (2·d<sub>model</sub>·d<sub>k</sub> numbers) hold it exactly")},
        {Text::tr("(<i>n</i>, <i>h</i>, <i>d</i><sub>k</sub>) → (<i>h</i>, <i>n</i>, <i>d</i><sub>k</sub>)"),
         Text::tr("the reshape code does: Q = XW<sup>Q</sup> viewed as h blocks of d<sub>k</sub> columns, then "
                  "transposed so that each head is one n × d<sub>k</sub> matrix Q<sub>i</sub>")},
    };
    return entries;
}

QString glossaryHtml()
{
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='3'>");
    for (const GlossaryEntry& entry : glossaryEntries())
        html += QStringLiteral("<tr><td valign='top' width='32%'><b>%1</b></td><td>%2</td></tr>")
                    .arg(entry.symbol, entry.meaning);
    return html + QStringLiteral("</table>");
}

}  // namespace qkv::ui
