/// EthereumTransactions module.
