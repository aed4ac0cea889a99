#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "python_bootstrap.h"

TEST_CASE("the bootstrap's folder lies beside libprof.so") {
  CHECK(prof::python_bootstrap_dir("/opt/libprof/lib/libprof.so") == "/opt/libprof/lib/libprof-python");
  CHECK(prof::python_bootstrap_dir("libprof.so") == "./libprof-python");
}

TEST_CASE("PYTHONPATH gets the folder first, once") {
  CHECK(prof::python_path_with("/l/p", nullptr) == "/l/p");
  CHECK(prof::python_path_with("/l/p", "") == "/l/p");
  CHECK(prof::python_path_with("/l/p", "/mine:/other") == "/l/p:/mine:/other");
  CHECK(prof::python_path_with("/l/p", "/l/p") == "");
  CHECK(prof::python_path_with("/l/p", "/l/p:/mine") == "");
  CHECK(prof::python_path_with("/l/p", "/l/px") == "/l/p:/l/px");
}

TEST_CASE("python -S, -I and -E are found among the interpreter's options only") {
  using Args = std::vector<std::string>;
  CHECK(prof::python_option_without_site(Args{"python3", "train.py"}) == 0);
  CHECK(prof::python_option_without_site(Args{"python3", "-S", "train.py"}) == 'S');
  CHECK(prof::python_option_without_site(Args{"python3", "-u", "-I", "-c", "pass"}) == 'I');
  CHECK(prof::python_option_without_site(Args{"python3", "-bE"}) == 'E');
  CHECK(prof::python_option_without_site(Args{"python3", "-c", "pass", "-S"}) == 0);
  CHECK(prof::python_option_without_site(Args{"python3", "-m", "pkg", "-I"}) == 0);
  CHECK(prof::python_option_without_site(Args{"python3", "-cS"}) == 0);  // -c's program is "S"
  CHECK(prof::python_option_without_site(Args{"python3", "-W", "ignore", "-S"}) == 'S');
  CHECK(prof::python_option_without_site(Args{"python3", "-Wignore", "train.py", "-S"}) == 0);
  CHECK(prof::python_option_without_site(Args{"python3", "-X", "importtime", "-s", "x.py"}) == 0);
  CHECK(prof::python_option_without_site(Args{"python3", "--check-hash-based-pycs", "always", "-I"}) == 'I');
  CHECK(prof::python_option_without_site(Args{"python3", "train.py", "-S"}) == 0);
}
