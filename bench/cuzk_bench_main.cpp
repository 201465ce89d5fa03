// cuzk-bench: one binary, one subcommand per benchmark family.
//   cuzk-bench arith [Google Benchmark flags]   field, curve and pairing micro-benchmarks
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

namespace {

void usage(FILE* out) {
  std::fprintf(out,
               "usage: cuzk-bench <command> [options]\n"
               "\n"
               "commands:\n"
               "  arith   field, curve and pairing micro-benchmarks; accepts Google Benchmark\n"
               "          flags, e.g. --benchmark_filter=pairing --benchmark_repetitions=3\n"
               "  help    this text\n");
}

int run_arith(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    usage(stdout);
    return 0;
  }
  // Hand the remaining arguments to the subcommand with the command name as argv[0].
  std::vector<char*> args;
  std::string name = std::string("cuzk-bench ") + cmd;
  args.push_back(name.data());
  for (int i = 2; i < argc; i++) args.push_back(argv[i]);
  args.push_back(nullptr);
  int sub_argc = int(args.size()) - 1;
  if (cmd == "arith") return run_arith(sub_argc, args.data());
  std::fprintf(stderr, "cuzk-bench: unknown command '%s'\n\n", cmd.c_str());
  usage(stderr);
  return 2;
}
