// TLS on the daemon's TCP listener (issue 29, "TCP with TLS"), against a real cuzk-daemon: a CA,
// a server certificate for 127.0.0.1 and localhost, and client certificates are made at test time
// with the openssl command (the tests skip without it). The TLS client reaches the daemon; a wrong
// CA, a plain-text client, and (with daemon.tls_client_ca) a client without a certificate or with
// one of another CA are refused; a plain TCP listener that is not loopback starts with a warning
// (shown in /status and /metrics); a bad TLS file is named at start.
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <gtest/gtest.h>

#include "daemon_harness.hpp"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using cuzk::test::DaemonProcess;

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs argv with stdout and stderr into *output; returns the exit code (-1 if it ran past timeout).
int run_capture(const std::vector<std::string>& argv, std::string* output,
                std::chrono::seconds timeout = std::chrono::seconds(60)) {
  char tmpl[] = "/tmp/cuzk-tls-out-XXXXXX";
  int fd = mkstemp(tmpl);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  bool done = false;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!(done = waitpid(pid, &status, WNOHANG) == pid) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  if (!done) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  close(fd);
  if (output) *output = slurp(tmpl);
  unlink(tmpl);
  if (!done) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The certificates of the tests, made once: ca (CA 1) signs server (127.0.0.1, localhost) and
// client; other-ca signs other-client.
class Pki {
 public:
  static Pki& get() {
    static Pki pki;
    return pki;
  }
  const std::string& skip_reason() const { return skip_; }
  std::string file(const std::string& name) const { return dir_ + "/" + name; }
  ~Pki() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

 private:
  Pki() {
    std::string which;
    if (run_capture({"/bin/sh", "-c", "command -v openssl"}, &which) != 0) {
      skip_ = "the openssl command is not installed: it makes the test certificates";
      return;
    }
    char tmpl[] = "/tmp/cuzk-tls-pki-XXXXXX";
    dir_ = mkdtemp(tmpl);
    const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    auto ca = [&](const std::string& name) {
      return "openssl req -x509 " + ec + " -keyout " + name + ".key -out " + name + ".pem -days 2 -subj /CN=" + name +
             " -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign";
    };
    auto leaf = [&](const std::string& name, const std::string& ca_name, const std::string& ext, int serial) {
      return "openssl req -new " + ec + " -keyout " + name + ".key -out " + name + ".csr -subj /CN=" + name +
             " && printf '" + ext + "' > " + name + ".ext && openssl x509 -req -in " + name + ".csr -CA " + ca_name +
             ".pem -CAkey " + ca_name + ".key -set_serial " + std::to_string(serial) + " -days 2 -extfile " + name +
             ".ext -out " + name + ".pem";
    };
    std::string script =
        "set -e; cd " + dir_ + "; " + ca("ca") + "; " + ca("other-ca") + "; " +
        leaf("server", "ca",
             "subjectAltName=IP:127.0.0.1,DNS:localhost\\nextendedKeyUsage=serverAuth\\n"
             "basicConstraints=CA:FALSE\\n",
             2) +
        "; " + leaf("client", "ca", "extendedKeyUsage=clientAuth\\nbasicConstraints=CA:FALSE\\n", 3) + "; " +
        leaf("other-client", "other-ca", "extendedKeyUsage=clientAuth\\nbasicConstraints=CA:FALSE\\n", 4) +
        "; printf 'not a certificate\\n' > garbage.pem";
    std::string out;
    if (int rc = run_capture({"/bin/sh", "-c", script}, &out); rc != 0) {
      skip_ = "openssl could not make the test certificates (exit " + std::to_string(rc) + "):\n" + out;
    }
  }
  std::string dir_, skip_;
};

class DaemonTls : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Pki::get().skip_reason().empty()) GTEST_SKIP() << Pki::get().skip_reason();
  }
  static std::string f(const std::string& name) { return Pki::get().file(name); }
  std::vector<std::string> server_tls() const { return {"--tls-cert", f("server.pem"), "--tls-key", f("server.key")}; }
  // `cuzk --addr ADDR [tls...] status --json`: its exit code, output in *out.
  static int status(const std::string& addr, std::vector<std::string> tls, std::string* out = nullptr) {
    std::vector<std::string> argv = {CUZK_CLIENT_BIN, "--addr", addr};
    argv.insert(argv.end(), tls.begin(), tls.end());
    argv.insert(argv.end(), {"status", "--json"});
    std::string text;
    int rc = run_capture(argv, &text);
    if (out) *out = text;
    return rc;
  }
  // cuzk-daemon with argv (which must fail at start): its exit code, output in *out.
  static int daemon_start_error(std::vector<std::string> args, std::string* out) {
    char tmpl[] = "/tmp/cuzk-tls-d-XXXXXX";
    std::string dir = mkdtemp(tmpl);
    std::vector<std::string> argv = {CUZK_DAEMON_BIN, "--param-cache-dir", dir + "/params", "--backend",
                                     "cpu",           "--budget",          "1GiB",          "--ready-file",
                                     dir + "/ready"};
    argv.insert(argv.end(), args.begin(), args.end());
    int rc = run_capture(argv, out, std::chrono::seconds(30));
    std::error_code ec;
    fs::remove_all(dir, ec);
    return rc;
  }
};

TEST_F(DaemonTls, ClientWithTheRightCaReachesTheDaemon) {
  DaemonProcess d(server_tls(), /*tcp=*/true);
  ASSERT_TRUE(d.running());
  EXPECT_NE(d.log().find("with TLS"), std::string::npos) << d.log();
  std::string out;
  EXPECT_EQ(status(d.addr(), {"--tls-ca", f("ca.pem")}, &out), 0) << out;
  EXPECT_NE(out.find("\"jobs_tracked\""), std::string::npos) << out;
  // By name: the certificate carries localhost too; and the name can be given apart from the address.
  std::string port = d.addr().substr(d.addr().rfind(':') + 1);
  EXPECT_EQ(status("localhost:" + port, {"--tls-ca", f("ca.pem")}, &out), 0) << out;
  EXPECT_EQ(status(d.addr(), {"--tls-ca", f("ca.pem"), "--tls-server-name", "localhost"}, &out), 0) << out;
  EXPECT_EQ(status(d.addr(), {"--tls-ca", f("ca.pem"), "--tls-server-name", "prover.example"}, &out), 2) << out;

  // gRPC's own TLS client, as Curio's would be.
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = slurp(f("ca.pem"));
  auto stub = cuzk::v1::ProvingEngine::NewStub(grpc::CreateChannel(d.addr(), grpc::SslCredentials(ssl)));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 10s);
  cuzk::v1::GetStatusResponse resp;
  grpc::Status s = stub->GetStatus(&ctx, cuzk::v1::GetStatusRequest(), &resp);
  EXPECT_TRUE(s.ok()) << s.error_message();

  // The status port stays plain HTTP.
  int code = -1;
  d.http_get("/healthz", &code);
  EXPECT_EQ(code, 200);
}

TEST_F(DaemonTls, WrongCaAndPlainTextAreRefused) {
  DaemonProcess d(server_tls(), /*tcp=*/true);
  ASSERT_TRUE(d.running());
  std::string out;
  EXPECT_EQ(status(d.addr(), {"--tls-ca", f("other-ca.pem")}, &out), 2) << out;
  EXPECT_NE(out.find("--tls-ca"), std::string::npos) << out;  // the hint says what to check
  EXPECT_EQ(status(d.addr(), {}, &out), 2) << out;
  EXPECT_NE(out.find("if it serves TLS, give --tls-ca"), std::string::npos) << out;

  // A plain-text gRPC client gets no answer either.
  auto stub = cuzk::v1::ProvingEngine::NewStub(grpc::CreateChannel(d.addr(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 10s);
  cuzk::v1::GetStatusResponse resp;
  EXPECT_FALSE(stub->GetStatus(&ctx, cuzk::v1::GetStatusRequest(), &resp).ok());
  EXPECT_TRUE(d.running());  // and the daemon goes on serving
  EXPECT_EQ(status(d.addr(), {"--tls-ca", f("ca.pem")}, &out), 0) << out;
}

TEST_F(DaemonTls, MutualTlsNeedsAClientCertificateOfTheCa) {
  std::vector<std::string> args = server_tls();
  args.insert(args.end(), {"--tls-client-ca", f("ca.pem")});
  DaemonProcess d(args, /*tcp=*/true);
  ASSERT_TRUE(d.running());
  EXPECT_NE(d.log().find("client certificates required"), std::string::npos) << d.log();
  std::string out;
  EXPECT_NE(status(d.addr(), {"--tls-ca", f("ca.pem")}, &out), 0) << out;
  EXPECT_EQ(
      status(d.addr(), {"--tls-ca", f("ca.pem"), "--tls-cert", f("client.pem"), "--tls-key", f("client.key")}, &out), 0)
      << out;
  EXPECT_NE(
      status(d.addr(),
             {"--tls-ca", f("ca.pem"), "--tls-cert", f("other-client.pem"), "--tls-key", f("other-client.key")}, &out),
      0)
      << out;
  EXPECT_TRUE(d.running());
}

// Curio's example file listens on 0.0.0.0:9820 in plain TCP (its client cannot speak TLS): an
// address the operator wrote starts, with a warning naming the risk and the TLS options, and the
// listener is shown as insecure in /status and /metrics. A loopback or TLS listener is not.
TEST_F(DaemonTls, ExposedPlainTcpStartsWithAWarningShownInStatusAndMetrics) {
  for (const bool acknowledged : {false, true}) {
    std::vector<std::string> args = {"--listen", "0.0.0.0:0"};
    if (acknowledged) args.push_back("--allow-insecure-tcp");
    DaemonProcess d(args, /*tcp=*/true);
    ASSERT_TRUE(d.running());
    EXPECT_NE(d.log().find("without TLS or client authentication"), std::string::npos) << d.log();
    EXPECT_NE(d.log().find("--tls-cert"), std::string::npos) << d.log();
    EXPECT_NE(d.log().find("tls_client_ca"), std::string::npos) << d.log();
    std::string out;
    EXPECT_EQ(status(d.addr(), {}, &out), 0) << out;
    const auto doc = nlohmann::json::parse(d.http_get("/status"));
    EXPECT_TRUE(doc["daemon"]["listener"]["insecure"].get<bool>()) << doc["daemon"].dump();
    EXPECT_FALSE(doc["daemon"]["listener"]["tls"].get<bool>());
    EXPECT_NE(d.http_get("/metrics").find("\ncuzk_listener_insecure 1"), std::string::npos);
  }
  DaemonProcess local({"--listen", "127.0.0.1:0"}, /*tcp=*/true);
  ASSERT_TRUE(local.running());
  EXPECT_EQ(local.log().find("without TLS or client authentication"), std::string::npos) << local.log();
  EXPECT_FALSE(nlohmann::json::parse(local.http_get("/status"))["daemon"]["listener"]["insecure"].get<bool>());
  EXPECT_NE(local.http_get("/metrics").find("\ncuzk_listener_insecure 0"), std::string::npos);
}

TEST_F(DaemonTls, ExposedTcpWithTlsStarts) {
  std::vector<std::string> args = server_tls();
  args.insert(args.end(), {"--listen", "0.0.0.0:0"});
  DaemonProcess d(args, /*tcp=*/true);
  ASSERT_TRUE(d.running());
  std::string out;
  EXPECT_EQ(status(d.addr(), {"--tls-ca", f("ca.pem")}, &out), 0) << out;
}

TEST_F(DaemonTls, BadTlsFilesAreNamedAtStart) {
  std::string out;
  const std::string missing = Pki::get().file("missing.key");
  EXPECT_EQ(daemon_start_error({"--listen", "127.0.0.1:0", "--tls-cert", f("server.pem"), "--tls-key", missing}, &out),
            2);
  EXPECT_NE(out.find("daemon.tls_key (--tls-key) " + missing + ": No such file or directory"), std::string::npos)
      << out;

  EXPECT_EQ(daemon_start_error(
                {"--listen", "127.0.0.1:0", "--tls-cert", f("garbage.pem"), "--tls-key", f("server.key")}, &out),
            2);
  EXPECT_NE(out.find(f("garbage.pem") + " holds no PEM certificate"), std::string::npos) << out;

  EXPECT_EQ(daemon_start_error(
                {"--listen", "127.0.0.1:0", "--tls-cert", f("server.pem"), "--tls-key", f("garbage.pem")}, &out),
            2);
  EXPECT_NE(out.find(f("garbage.pem") + " is not an unencrypted PEM private key"), std::string::npos) << out;

  EXPECT_EQ(daemon_start_error({"--listen", "127.0.0.1:0", "--tls-cert", f("server.pem"), "--tls-key", f("client.key")},
                               &out),
            2);
  EXPECT_NE(out.find(f("client.key") + " is not the private key of the certificate in daemon.tls_cert"),
            std::string::npos)
      << out;

  EXPECT_EQ(daemon_start_error({"--listen", "127.0.0.1:0", "--tls-cert", f("server.pem")}, &out), 2);
  EXPECT_NE(out.find("TLS needs both daemon.tls_cert (--tls-cert) and daemon.tls_key"), std::string::npos) << out;

  EXPECT_EQ(daemon_start_error({"--listen", "127.0.0.1:0", "--tls-client-ca", f("ca.pem")}, &out), 2);
  EXPECT_NE(out.find("daemon.tls_client_ca (--tls-client-ca) needs TLS"), std::string::npos) << out;

  std::vector<std::string> args = server_tls();
  args.insert(args.end(), {"--listen", "127.0.0.1:0", "--tls-client-ca", f("garbage.pem")});
  EXPECT_EQ(daemon_start_error(args, &out), 2);
  EXPECT_NE(out.find("daemon.tls_client_ca (--tls-client-ca) " + f("garbage.pem") + " holds no PEM certificate"),
            std::string::npos)
      << out;
}

TEST_F(DaemonTls, ClientTlsOptionsAreChecked) {
  std::string out;
  EXPECT_EQ(status("unix:/tmp/nowhere.sock", {"--tls-ca", f("ca.pem")}, &out), 1);
  EXPECT_NE(out.find("unix socket, which never uses TLS"), std::string::npos) << out;
  EXPECT_EQ(status("127.0.0.1:1", {"--tls-ca", f("ca.pem"), "--tls-cert", f("client.pem")}, &out), 1);
  EXPECT_NE(out.find("--tls-cert and --tls-key go together"), std::string::npos) << out;
  const std::string missing = Pki::get().file("missing.pem");
  EXPECT_EQ(status("127.0.0.1:1", {"--tls-ca", missing}, &out), 13);
  EXPECT_NE(out.find("--tls-ca " + missing + ": cannot read it"), std::string::npos) << out;
  EXPECT_EQ(status("127.0.0.1:1", {"--tls-ca", f("garbage.pem")}, &out), 13);
  EXPECT_NE(out.find("not a PEM certificate"), std::string::npos) << out;
}

}  // namespace
