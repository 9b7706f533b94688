#include "store/postgres_test_fixture.h"

#include <cctype>
#include <memory>

namespace accelopt::store {

PostgresCluster* shared_postgres_cluster(std::string& why) {
  static std::string reason;
  static std::unique_ptr<PostgresCluster> instance = PostgresCluster::start(reason);
  why = reason;
  return instance.get();
}

std::string current_test_database_name() {
  const testing::TestInfo* test = testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(test->test_suite_name()) + "_" + test->name();
  for (char& character : name) {
    auto byte = static_cast<unsigned char>(character);
    character = std::isalnum(byte) ? static_cast<char>(std::tolower(byte)) : '_';
  }
  return name.substr(0, 63);
}

bool PostgresDatabase::create(std::string& why) {
  cluster_ = shared_postgres_cluster(why);
  if (cluster_ == nullptr) return false;
  name_ = current_test_database_name();
  url_ = cluster_->create_database(name_);
  return true;
}

std::string PostgresDatabase::psql(const std::string& sql) const {
  return cluster_->psql(name_, sql);
}

}  // namespace accelopt::store
