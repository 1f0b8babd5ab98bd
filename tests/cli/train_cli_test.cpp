// `qkv-studio train` end to end at tiny sizes: the folder it writes (sessions the export reads,
// the log, the report's keys), its exit statuses, and that a bad --out is refused before any
// training.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "core/session/session.hpp"
#include "core/training/training_loop.hpp"

namespace qkv::testing {
namespace {

using TrainCli = ExportCli;

std::vector<std::string> tiny(const std::string& task, const std::string& out, std::vector<std::string> more = {})
{
    std::vector<std::string> arguments{"train", "--task", task, "--d-model", "16", "--heads", "2", "--steps", "4",
                                       "--batch", "4", "--seed", "3", "--out", out};
    arguments.insert(arguments.end(), more.begin(), more.end());
    return arguments;
}

std::vector<std::string> linesOf(const std::string& path)
{
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

TEST_F(TrainCli, BothVariantsWriteSessionsLogAndReport)
{
    const std::string out = path("run");
    const CommandRun trained = run(tiny("reverse", out, {"--variant", "both"}));
    ASSERT_EQ(trained.status, 0) << trained.output;
    // Not a terminal: no bar, a line per variant when it is done.
    EXPECT_EQ(trained.output.find('\r'), std::string::npos) << trained.output;
    EXPECT_NE(trained.output.find("qkv-studio train: factored: trained: reverse"), std::string::npos) << trained.output;
    EXPECT_NE(trained.output.find("qkv-studio train: full: trained: reverse"), std::string::npos) << trained.output;

    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(out)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"factored.qkv.json", "full.qkv.json", "log.csv", "report.json"}));

    const std::vector<std::string> log = linesOf(out + "/log.csv");
    ASSERT_EQ(log.size(), 9u);  // header + 4 steps of each variant
    EXPECT_EQ(log[0], "step,variant,loss,accuracy,seconds");
    EXPECT_EQ(log[1].substr(0, 11), "1,factored,");
    EXPECT_EQ(log[8].substr(0, 7), "4,full,");

    const nlohmann::json report = readJson(out + "/report.json");
    for (const char* variant : {"factored", "full"}) {
        SCOPED_TRACE(variant);
        const nlohmann::json& v = report["variants"][variant];
        for (const char* key : {"parameters", "attention_parameters", "steps", "seconds", "train_loss", "heldout_loss",
                                "heldout_accuracy", "vocabulary", "layers"})
            EXPECT_TRUE(v.contains(key)) << key;
        EXPECT_EQ(v["steps"], 4);
        EXPECT_EQ(v["vocabulary"][0], "<pad>");
        EXPECT_EQ(v["vocabulary"][1], "<bos>");
        ASSERT_EQ(v["layers"].size(), 3u);  // encoder self, decoder self, cross
        const nlohmann::json& cross = v["layers"][2];
        EXPECT_EQ(cross["name"], "decoder.0.cross_attention");
        ASSERT_EQ(cross["heads"].size(), 2u);
        EXPECT_TRUE(cross["heads"][0]["effective_rank"].is_number_integer());
        EXPECT_TRUE(cross["heads"][0]["alignment"].is_number());
        EXPECT_TRUE(v["layers"][0]["heads"][0]["alignment"].is_null());  // measured on cross-attention only
    }
    // Score parameters per head: 2 d_model d_k (factored) vs d_model^2 (full), 3 layers of 2 heads.
    EXPECT_EQ(report["variants"]["factored"]["score_parameters"], 3 * 2 * 2 * 16 * 8);
    EXPECT_EQ(report["variants"]["full"]["score_parameters"], 3 * 2 * 16 * 16);
    const nlohmann::json& comparison = report["comparison"];
    EXPECT_EQ(comparison["variants"].size(), 2u);
    EXPECT_TRUE(comparison.contains("first_to_target"));
    ASSERT_EQ(comparison["full_w_i"].size(), 6u);
    EXPECT_EQ(comparison["full_w_i"][0]["singular_values"].size(), 16u);
    EXPECT_TRUE(comparison["full_w_i"][0]["energy_99_count"].is_number_integer());
    EXPECT_EQ(report["target"]["metric"], "heldout_sequence_accuracy");

    // The sessions open, each with its model and the cross-attention layer shown.
    for (const char* name : {"factored.qkv.json", "full.qkv.json"}) {
        const Expected<Session> session = readSession(out + "/" + name);
        ASSERT_TRUE(session.ok()) << session.error();
        ASSERT_TRUE(session->model);
        EXPECT_EQ(session->model->steps, 4);
        // The untrained model's evaluation at step 0, as in the Train tab's sessions, and a point per step.
        ASSERT_EQ(session->model->curve.size(), 5u);
        EXPECT_EQ(session->model->curve.front().step, 0);
        EXPECT_EQ(session->config.mode, AttentionMode::Cross);
        EXPECT_EQ(session->modelLayer, 2);
    }
}

TEST_F(TrainCli, ExportReadsTheTrainedSession)
{
    const std::string out = path("run");
    ASSERT_EQ(run(tiny("reverse", out)).status, 0);
    const std::string session = out + "/factored.qkv.json";

    const CommandRun listed = run({"export", "--session", session, "--list-layers"});
    ASSERT_EQ(listed.status, 0) << listed.output;
    EXPECT_EQ(listed.output, "0\tencoder.0.self_attention\tself\t2\t2\t16\n"
                             "1\tdecoder.0.self_attention\tcausal\t2\t2\t16\n"
                             "2\tdecoder.0.cross_attention\tcross\t2\t2\t16\n");

    // The session as written: its cross-attention on a held-out example, in the model's tokens.
    const CommandRun shown = run({"export", "--session", session, "--format", "json", "--out", path("shown.json")});
    ASSERT_EQ(shown.status, 0) << shown.output;
    const nlohmann::json json = readJson(path("shown.json"));
    EXPECT_EQ(json["config"]["mode"], "cross");
    EXPECT_EQ(json["config"]["weights"], "trained");
    EXPECT_EQ(json["config"]["weights_layer"], "decoder.0.cross_attention");
    EXPECT_EQ(json["tokens"]["query"][0], "<bos>");

    // --layer 1: the decoder's masked self-attention; its kind sets the mode.
    const CommandRun layer = run({"export", "--session", session, "--layer", "1", "--format", "json", "--out",
                                  path("layer1.json")});
    ASSERT_EQ(layer.status, 0) << layer.output;
    const nlohmann::json one = readJson(path("layer1.json"));
    EXPECT_EQ(one["config"]["mode"], "causal");
    EXPECT_EQ(one["config"]["weights_layer"], "decoder.0.self_attention");
    EXPECT_EQ(one["tokens"]["query"], one["tokens"]["key"]);

    // The typed sentences are read with the model's vocabulary.
    const nlohmann::json vocabulary = readJson(out + "/report.json")["variants"]["factored"]["vocabulary"];
    const std::string a = vocabulary[3], b = vocabulary[4];
    const CommandRun typed = run({"export", "--session", session, "--source", a + " " + b + " " + a, "--target",
                                  b + " " + a + " " + b, "--format", "json", "--out", path("typed.json")});
    ASSERT_EQ(typed.status, 0) << typed.output;
    EXPECT_EQ(readJson(path("typed.json"))["tokens"]["key"], (nlohmann::json{a, b, a}));

    const CommandRun unknown = run({"export", "--session", session, "--source", a + " zebra", "--format", "json",
                                    "--out", path("x.json")});
    EXPECT_EQ(unknown.status, 2) << unknown.output;
    EXPECT_NE(unknown.output.find("--source"), std::string::npos) << unknown.output;
    EXPECT_NE(unknown.output.find("'zebra' is not in this model's vocabulary"), std::string::npos) << unknown.output;
    EXPECT_FALSE(std::filesystem::exists(path("x.json")));

    // --format session keeps the model, and the layer --layer chose.
    const CommandRun saved = run({"export", "--session", session, "--layer", "decoder.0.self_attention", "--format",
                                  "session", "--out", path("again.qkv.json")});
    ASSERT_EQ(saved.status, 0) << saved.output;
    const Expected<Session> again = readSession(path("again.qkv.json"));
    ASSERT_TRUE(again.ok()) << again.error();
    ASSERT_TRUE(again->model);
    EXPECT_EQ(again->modelLayer, 1);
    EXPECT_EQ(again->config.mode, AttentionMode::DecoderCausal);
    EXPECT_EQ(again->model->parameters.values, readSession(session)->model->parameters.values);

    // Biases are not the model's: the message names the session its weights come from.
    const CommandRun bias = run({"export", "--session", session, "--bias", "--format", "json", "--out", path("x.json")});
    EXPECT_EQ(bias.status, 2) << bias.output;
    EXPECT_NE(bias.output.find("--session: The trained model's attention has no biases"), std::string::npos)
        << bias.output;
    // So are positions: they are inside the hidden states.
    const CommandRun positions = run({"export", "--session", session, "--positional", "sinusoidal", "--format", "json",
                                      "--out", path("x.json")});
    EXPECT_EQ(positions.status, 2) << positions.output;
    EXPECT_NE(positions.output.find("--positional:"), std::string::npos) << positions.output;

    const CommandRun noLayer = run({"export", "--session", session, "--layer", "7", "--format", "json", "--out",
                                    path("x.json")});
    EXPECT_EQ(noLayer.status, 1) << noLayer.output;
    EXPECT_NE(noLayer.output.find("no layer '7'"), std::string::npos) << noLayer.output;
}

// A full W_i session exports like any other: its heads as W_i^Q = W_i, W_i^K = I (d_k = d_model),
// each head's spectrum that of its learned W_i.
TEST_F(TrainCli, FullSessionExportsItsLayer)
{
    const std::string out = path("run");
    ASSERT_EQ(run(tiny("reverse", out, {"--variant", "full"})).status, 0);
    EXPECT_FALSE(std::filesystem::exists(out + "/factored.qkv.json"));
    const CommandRun exported =
        run({"export", "--session", out + "/full.qkv.json", "--format", "json", "--out", path("x.json")});
    ASSERT_EQ(exported.status, 0) << exported.output;
    const nlohmann::json doc = readJson(path("x.json"));
    const Index d_model = doc.at("config").at("d_model").get<Index>();
    EXPECT_EQ(doc.at("config").at("d_k"), d_model);
    EXPECT_EQ(doc.at("config").at("head_dim"), d_model);
    ASSERT_FALSE(doc.at("heads").empty());
    for (const nlohmann::json& head : doc.at("heads")) {
        EXPECT_EQ(head.at("factored").at("singular_values").size(), static_cast<std::size_t>(d_model));
        EXPECT_LT(head.at("factored").at("equivalence_error").get<double>(), 1e-5);
    }
}

// `--session TRAINED --layer all`: the whole-model JSON (docs/formats.md) of the trained model,
// every layer under its trained name, the decoder's tokens after <bos>, predictions at each
// decoder position over the model's words; --ablate with a head changes them.
TEST_F(TrainCli, SessionExportsTheWholeTrainedModel)
{
    const std::string out = path("run");
    ASSERT_EQ(run(tiny("reverse", out)).status, 0);
    const std::string session = out + "/factored.qkv.json";
    const Expected<Session> read = readSession(session);
    ASSERT_TRUE(read.ok()) << read.error();
    const Vocabulary& words = read->model->vocabulary;
    const std::string a = words.token(3), b = words.token(4), c = words.token(5);
    const std::string source = a + " " + b + " " + c, target = c + " " + b + " " + a;
    const CommandRun whole = run({"export", "--session", session, "--layer", "all", "--source", source, "--target",
                                  target, "--format", "json", "--out", path("whole.json")});
    ASSERT_EQ(whole.status, 0) << whole.output;
    const nlohmann::json doc = readJson(path("whole.json"));
    EXPECT_EQ(doc.at("format"), "qkv-studio-model-export");
    EXPECT_EQ(doc.at("version"), 1);
    EXPECT_EQ(doc.at("model").at("family"), "Trained in QKV Studio");
    EXPECT_EQ(doc.at("model").at("file"), std::filesystem::absolute(session).lexically_normal().string());
    const std::vector<AttentionLayerInfo> infos = attentionLayers(read->model->parameters.spec);
    EXPECT_EQ(doc.at("model").at("layer_count"), infos.size());
    ASSERT_EQ(doc.at("layers").size(), infos.size());
    for (std::size_t l = 0; l < infos.size(); ++l) {
        EXPECT_EQ(doc["layers"][l].at("name"), infos[l].name);
        EXPECT_EQ(doc["layers"][l].at("index"), l);
        EXPECT_EQ(doc["layers"][l].at("heads").size(), 2u);
    }
    EXPECT_EQ(doc.at("tokens").at("source"), (nlohmann::json{a, b, c}));
    EXPECT_EQ(doc.at("tokens").at("target"), (nlohmann::json{"<bos>", c, b, a}));
    const nlohmann::json& predictions = doc.at("predictions");
    ASSERT_EQ(predictions.size(), 4u);
    EXPECT_EQ(predictions[0].at("top").size(), 5u);
    EXPECT_TRUE(predictions[0]["top"][0].at("token").is_string());
    ASSERT_TRUE(doc.contains("rollout"));

    // The name a head has: "LAYER.HEAD" with the trained layer's name.
    const CommandRun ablated = run({"export", "--session", session, "--layer", "all", "--source", source, "--target",
                                    target, "--ablate", "decoder.0.cross_attention.1,decoder.0.cross_attention.2",
                                    "--format", "json", "--out", path("ablated.json")});
    ASSERT_EQ(ablated.status, 0) << ablated.output;
    const nlohmann::json off = readJson(path("ablated.json"));
    EXPECT_EQ(off.at("ablated_heads").size(), 2u);
    EXPECT_NE(off.at("predictions")[1].at("top")[0].at("probability"), predictions[1].at("top")[0].at("probability"));

    // A session without a trained model has no whole model to export.
    const CommandRun plain = run({"export", "--format", "session", "--out", path("plain.qkv.json")});
    ASSERT_EQ(plain.status, 0) << plain.output;
    const CommandRun none = run({"export", "--session", path("plain.qkv.json"), "--layer", "all", "--format", "json",
                                 "--out", path("none.json")});
    EXPECT_NE(none.status, 0);
    EXPECT_NE(none.output.find("holds no trained model"), std::string::npos) << none.output;
}

TEST_F(TrainCli, InductionShowsTheLastLayer)
{
    const std::string out = path("run");
    const CommandRun trained = run(tiny("induction", out));
    ASSERT_EQ(trained.status, 0) << trained.output;
    const Expected<Session> session = readSession(out + "/factored.qkv.json");
    ASSERT_TRUE(session.ok()) << session.error();
    EXPECT_EQ(session->config.mode, AttentionMode::DecoderCausal);
    EXPECT_EQ(attentionLayers(session->model->parameters.spec).back().name,
              attentionLayers(session->model->parameters.spec).at(static_cast<std::size_t>(session->modelLayer)).name);
    const nlohmann::json report = readJson(out + "/report.json");
    const nlohmann::json& head = report["variants"]["factored"]["layers"][0]["heads"][0];
    EXPECT_TRUE(head.contains("induction"));
    EXPECT_TRUE(head.contains("previous_token"));
    EXPECT_FALSE(head.contains("alignment"));
}

TEST_F(TrainCli, TranslatesTheUsersPairs)
{
    std::ofstream(path("pairs.tsv")) << "the cat\tle chat\nthe dog\tle chien\na black cat\tun chat noir\n"
                                        "the black dog\tle chien noir\na cat\tun chat\n";
    const std::string out = path("run");
    // Named relatively, stored absolutely: the session may be opened from another folder.
    const CommandRun trained = run(tiny("translate", out, {"--data", "pairs.tsv"}), "cd " + quote(directory_.string()) + " &&");
    ASSERT_EQ(trained.status, 0) << trained.output;
    const Expected<Session> session = readSession(out + "/factored.qkv.json");
    ASSERT_TRUE(session.ok()) << session.error();
    EXPECT_EQ(session->model->settings.task.pairsFile, path("pairs.tsv"));
    EXPECT_TRUE(session->model->vocabulary.find("chien").has_value());
}

TEST_F(TrainCli, EvaluatesAsTheOneScheduleSays)
{
    // 120 steps: the untrained model, then every 3rd step (EvaluationSchedule rounds 120 / 50 up),
    // as the Train tab does (training_worker_test.cpp), not every 2nd.
    const std::string out = path("run");
    const CommandRun trained = run(tiny("reverse", out, {"--steps", "120"}));  // the last --steps counts
    ASSERT_EQ(trained.status, 0) << trained.output;
    const Expected<Session> session = readSession(out + "/factored.qkv.json");
    ASSERT_TRUE(session.ok()) << session.error();
    const EvaluationSchedule schedule{120};
    std::vector<long> evaluated, expected;
    for (const CurvePoint& point : session->model->curve)
        if (std::isfinite(point.heldOutLoss)) evaluated.push_back(point.step);
    for (long step = 0; step <= 120; ++step)
        if (schedule.evaluatesAt(step)) expected.push_back(step);
    EXPECT_EQ(evaluated, expected);
    EXPECT_EQ(static_cast<long>(evaluated.size()), schedule.count());
    EXPECT_EQ(schedule.count(), 41);
    // log.csv keeps one row per optimiser step: the untrained model's point is no step.
    EXPECT_EQ(linesOf(out + "/log.csv").size(), 121u);
}

TEST_F(TrainCli, BadArgumentsExitTwoNamingTheOption)
{
    const std::string out = path("run");
    const auto expectRefused = [&](std::vector<std::string> arguments, const std::string& option) {
        const CommandRun refused = run(arguments);
        EXPECT_EQ(refused.status, 2) << refused.output;
        EXPECT_NE(refused.output.find(option), std::string::npos) << "wanted " << option << " in: " << refused.output;
        EXPECT_FALSE(std::filesystem::exists(out));
    };
    expectRefused(tiny("reverse", out, {"--colour", "red"}), "unknown argument '--colour'");
    expectRefused(tiny("reverse", out, {"--steps"}), "--steps: needs a value");
    expectRefused(tiny("reverse", out, {"--steps", "many"}), "--steps: 'many' is not a whole number");
    expectRefused(tiny("reverse", out, {"--lr", "fast"}), "--lr: 'fast' is not a number");
    // The training limits' own words (core/training/training_limits.hpp) after the option.
    expectRefused(tiny("reverse", out, {"--steps", "0"}), "--steps: steps must be between 1 and 10,000,000; 0 is not");
    expectRefused(tiny("reverse", out, {"--lr", "-1"}), "--lr: learning rate must be between 1e-6 and 1; -1 is not");
    expectRefused(tiny("reverse", out, {"--d-model", "5000"}),
                  "--d-model: d_model must be between 4 and 1,024; 5,000 is not");
    expectRefused(tiny("reverse", out, {"--layers", "40"}), "--layers: layers must be between 1 and 12; 40 is not");
    expectRefused(tiny("reverse", out, {"--batch", "100000"}),
                  "--batch: batch must be between 1 and 4,096; 100,000 is not");
    expectRefused(tiny("reverse", out, {"--heads", "32"}), "--heads: h must be between 1 and d_model 16; 32 is not");
    expectRefused(tiny("reverse", out, {"--d-model", "30", "--heads", "4"}),
                  "--heads: h must divide d_model 30; 4 does not");
    expectRefused({"train", "--task", "reverse", "--d-model", "30", "--out", out},
                  "--d-model: h must divide d_model 30; 4 does not");
    expectRefused(tiny("reverse", out, {"--heads", "3"}), "--heads: h must divide d_model 16; 3 does not");
    expectRefused(tiny("reverse", out, {"--task", "summarise"}), "--task: 'summarise' is not one of");
    expectRefused(tiny("reverse", out, {"--variant", "diagonal"}), "--variant: 'diagonal' is not one of factored, full, both");
    expectRefused(tiny("reverse", out, {"--data", path("pairs.tsv")}), "--data: goes with --task translate");
    expectRefused(tiny("copy", out, {"--language", "de"}), "--language: goes with --task translate");
    expectRefused({"train", "--out", out}, "--task: required");
    expectRefused({"train", "--task", "copy"}, "--out:");
}

TEST_F(TrainCli, UnusableFolderExitsOneBeforeAnyTraining)
{
    // Ten million steps: only a refusal before training returns at once.
    const auto refusedAtOnce = [&](const std::string& out, const std::string& fragment) {
        const auto started = std::chrono::steady_clock::now();
        // (timeout: a run that did start training ends the test instead of hanging it)
        const CommandRun refused = run({"train", "--task", "reverse", "--steps", "10000000", "--out", out}, "timeout 20");
        EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
        EXPECT_EQ(refused.status, 1) << refused.output;
        EXPECT_NE(refused.output.find(fragment), std::string::npos) << "wanted " << fragment << " in: " << refused.output;
    };
    std::filesystem::create_directories(path("full"));
    std::ofstream(path("full/notes.txt")) << "keep me";
    refusedAtOnce(path("full"), "is not empty");
    EXPECT_TRUE(std::filesystem::exists(path("full/notes.txt")));

    std::ofstream(path("file")) << "a file";
    refusedAtOnce(path("file"), "is a file, not a folder");
    refusedAtOnce(path("file") + "/run", "cannot write");
    refusedAtOnce("/proc/qkv-studio-train-test", "cannot write");

    // An empty folder is fine, and ends up holding the run.
    std::filesystem::create_directories(path("empty"));
    ASSERT_EQ(run(tiny("copy", path("empty"))).status, 0);
    EXPECT_TRUE(std::filesystem::exists(path("empty/factored.qkv.json")));
}

TEST_F(TrainCli, SigtermDuringTrainingLeavesNothing)
{
    const pid_t pid = spawn({"train", "--task", "copy", "--steps", "10000000", "--out", path("run")});
    ASSERT_GT(pid, 0);
    // The temporary folder beside --out appears once the checks are done and training starts.
    bool training = false;
    for (int i = 0; i < 5000 && !training; ++i) {
        for (const auto& entry : std::filesystem::directory_iterator(directory_))
            training = training || entry.path().filename().string().find("run.tmp-") == 0;
        if (!training) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_TRUE(training);
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
    EXPECT_TRUE(std::filesystem::is_empty(directory_));
}

TEST_F(TrainCli, UnreadablePairsFileExitsOne)
{
    const CommandRun missing = run(tiny("translate", path("run"), {"--data", path("missing.tsv")}));
    EXPECT_EQ(missing.status, 1) << missing.output;
    EXPECT_NE(missing.output.find("missing.tsv"), std::string::npos) << missing.output;
    EXPECT_FALSE(std::filesystem::exists(path("run")));
}

TEST_F(TrainCli, HelpListsEveryOption)
{
    const CommandRun help = run({"train", "--help"});
    EXPECT_EQ(help.status, 0);
    for (const char* option : {"--task", "--data", "--language", "--variant", "--d-model", "--heads", "--layers",
                               "--steps", "--batch", "--lr", "--seed", "--out"})
        EXPECT_NE(help.output.find(option), std::string::npos) << option;
}

}  // namespace
}  // namespace qkv::testing
